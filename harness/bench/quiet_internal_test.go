package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseLoad(t *testing.T) {
	got, err := ParseLoad("0.42 0.80 11.10 2/345 6789\n")
	if err != nil || got != (Load{0.42, 0.80, 11.10}) {
		t.Errorf("ParseLoad = %v, %v; want 0.42 0.80 11.10", got, err)
	}
	if got.String() != "0.42 0.80 11.10" {
		t.Errorf("String = %q", got.String())
	}
	for _, bad := range []string{"", "0.42 0.80", "0.42 x 1.10", "-1 0 0", "NaN 0 0"} {
		if l, err := ParseLoad(bad); err == nil {
			t.Errorf("ParseLoad(%q) = %v, want an error", bad, l)
		}
	}
}

func TestParseCPUTimes(t *testing.T) {
	got, err := ParseCPUTimes("cpu  1000 10 200 5000 40 3 7 20 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n")
	if want := (CPUTimes{Busy: 1000 + 10 + 200 + 3 + 7 + 20, Total: 1240 + 5000 + 40}); err != nil || got != want {
		t.Errorf("ParseCPUTimes = %+v, %v; want %+v", got, err, want)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4 5 6 7 8", "cpu 1 2 3", "cpu 1 2 x 4 5 6 7 8"} {
		if c, err := ParseCPUTimes(bad); err == nil {
			t.Errorf("ParseCPUTimes(%q) = %+v, want an error", bad, c)
		}
	}
	a, b := CPUTimes{Busy: 100, Total: 1000}, CPUTimes{Busy: 350, Total: 2000}
	if got := BusyShare(a, b); got != 0.25 {
		t.Errorf("BusyShare = %g, want 0.25", got)
	}
	if got := BusyShare(a, a); got != 0 {
		t.Errorf("BusyShare over no time = %g, want 0", got)
	}
}

// fakeMachine is a clock that only sleeps move, a load that is a
// function of the time slept so far, and CPU times whose busy share over
// a sleep is a function of when the sleep ends.
type fakeMachine struct {
	now, start time.Time
	load       func(since time.Duration) (Load, error)
	busy       func(since time.Duration) float64
	cpu        CPUTimes
	cpuErr     error
	events     []string // "cpu", "read 2.00", "sleep 5s", and what else the test adds
}

func newFakeMachine(load func(since time.Duration) (Load, error)) *fakeMachine {
	t0 := time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)
	return &fakeMachine{now: t0, start: t0, load: load, busy: func(time.Duration) float64 { return 0.05 }}
}

func (m *fakeMachine) quiet(threshold float64, timeout time.Duration) Quiet {
	return Quiet{Load: threshold, Timeout: timeout,
		ReadLoad: func() (Load, error) {
			l, err := m.load(m.now.Sub(m.start))
			m.events = append(m.events, fmt.Sprintf("read %.2f", l.One))
			return l, err
		},
		ReadCPU: func() (CPUTimes, error) {
			m.events = append(m.events, "cpu")
			return m.cpu, m.cpuErr
		},
		Now: func() time.Time { return m.now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			m.events = append(m.events, "sleep "+d.String())
			m.now = m.now.Add(d)
			ticks := uint64(d / time.Millisecond)
			m.cpu.Total += ticks
			m.cpu.Busy += uint64(float64(ticks) * m.busy(m.now.Sub(m.start)))
			return nil
		},
	}
}

func constLoad(one float64) func(time.Duration) (Load, error) {
	return func(time.Duration) (Load, error) { return Load{one, one, one}, nil }
}

func TestWaitQuietAtOnce(t *testing.T) {
	m := newFakeMachine(constLoad(0.8))
	w := newWaiter(m.quiet(1.5, time.Minute), nil)
	st, err := w.wait(context.Background(), "round 1")
	if want := (start{load: Load{0.8, 0.8, 0.8}, busy: 0.05, waited: 5 * time.Second, quiet: true}); err != nil || st != want {
		t.Errorf("wait = %+v, %v; want %+v: one watch of the machine, quiet", st, err, want)
	}
	if got := strings.Join(m.events, ", "); got != "cpu, sleep 5s, cpu, read 0.80" {
		t.Errorf("events %q, want one watch", got)
	}
}

func TestWaitUntilLoadFalls(t *testing.T) {
	// Loud for the first 20 s, then quiet.
	m := newFakeMachine(func(since time.Duration) (Load, error) {
		if since < 20*time.Second {
			return Load{One: 3}, nil
		}
		return Load{One: 1.2}, nil
	})
	var log strings.Builder
	w := newWaiter(m.quiet(1.5, time.Minute), &log)
	st, err := w.wait(context.Background(), "round 1")
	if want := (start{load: Load{One: 1.2}, busy: 0.05, waited: 20 * time.Second, quiet: true}); err != nil || st != want {
		t.Errorf("wait = %+v, %v; want %+v", st, err, want)
	}
	want := "cpu, sleep 5s, cpu, read 3.00, sleep 5s, cpu, read 3.00, sleep 5s, cpu, read 3.00, sleep 5s, cpu, read 1.20"
	if got := strings.Join(m.events, ", "); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(log.String(), "waiting for a quiet machine (load 3.00 0.00 0.00, CPU 5 % busy; want the 1-minute load under 1.50 and under 20 % busy") ||
		!strings.Contains(log.String(), "quiet (load 1.20 0.00 0.00, CPU 5 % busy) after 20s; round 1") {
		t.Errorf("the log does not say it waited, and for what:\n%s", log.String())
	}
}

func TestWaitWhileOtherWorkIsBusy(t *testing.T) {
	// The 1-minute load is under the threshold from the start, but other
	// work keeps half the machine's CPU busy until 15 s: one process on
	// one of two CPUs.
	m := newFakeMachine(constLoad(1.2))
	m.busy = func(since time.Duration) float64 {
		if since <= 15*time.Second {
			return 0.5
		}
		return 0.05
	}
	w := newWaiter(m.quiet(1.5, time.Minute), nil)
	st, err := w.wait(context.Background(), "round 1")
	if want := (start{load: Load{1.2, 1.2, 1.2}, busy: 0.05, waited: 20 * time.Second, quiet: true}); err != nil || st != want {
		t.Errorf("wait = %+v, %v; want %+v: quiet once the other work stopped", st, err, want)
	}
	// With the check off (Busy 1), the load alone decides.
	m = newFakeMachine(constLoad(1.2))
	m.busy = func(time.Duration) float64 { return 0.5 }
	q := m.quiet(1.5, time.Minute)
	q.Busy = 1
	if st, err := newWaiter(q, nil).wait(context.Background(), "round 1"); err != nil || !st.quiet || st.busy != 0.5 || st.waited != 5*time.Second {
		t.Errorf("wait with Busy 1 = %+v, %v; want quiet after one watch, 50 %% busy recorded", st, err)
	}
}

func TestWaitTimesOutThenStopsWaiting(t *testing.T) {
	load := 2.0
	m := newFakeMachine(func(time.Duration) (Load, error) { return Load{One: load}, nil })
	w := newWaiter(m.quiet(1.5, time.Minute), nil)
	ctx := context.Background()

	st, err := w.wait(ctx, "round 1")
	if err != nil || st.quiet || st.waited != time.Minute || st.load.One != 2 {
		t.Errorf("first wait = %+v, %v; want load 2.00 after the 1m timeout, not quiet", st, err)
	}
	// Given up: the next rounds watch the machine once and do not wait.
	m.events = nil
	if st, err := w.wait(ctx, "round 2"); err != nil || st.quiet || st.waited != 5*time.Second || st.load.One != 2 {
		t.Errorf("second wait = %+v, %v; want load 2.00 after one watch, not quiet", st, err)
	}
	load = 1.0
	if st, err := w.wait(ctx, "round 3"); err != nil || !st.quiet || st.waited != 5*time.Second || st.load.One != 1 {
		t.Errorf("third wait = %+v, %v; want load 1.00 after one watch, quiet", st, err)
	}
	if got := strings.Join(m.events, ", "); got != "cpu, sleep 5s, cpu, read 2.00, cpu, sleep 5s, cpu, read 1.00" {
		t.Errorf("events after giving up %q, want one watch each", got)
	}
}

func TestWaitOff(t *testing.T) {
	m := newFakeMachine(constLoad(0.3))
	w := newWaiter(m.quiet(0, time.Minute), nil)
	st, err := w.wait(context.Background(), "round 1")
	if want := (start{load: Load{0.3, 0.3, 0.3}, busy: -1}); err != nil || st != want {
		t.Errorf("wait = %+v, %v; want %+v: the load recorded, no wait, not quiet (nothing was checked)", st, err, want)
	}
	if got := strings.Join(m.events, ", "); got != "read 0.30" {
		t.Errorf("events %q, want one read of the load", got)
	}
	// Not waiting, a load that cannot be read is recorded as zero.
	m.load = func(time.Duration) (Load, error) { return Load{}, errors.New("no /proc") }
	if st, err := w.wait(context.Background(), "round 2"); err != nil || st.quiet || st.load != (Load{}) {
		t.Errorf("wait = %+v, %v; want a zero load, not quiet, no error", st, err)
	}
}

func TestWaitUnreadable(t *testing.T) {
	unreadable := errors.New("no /proc")
	m := newFakeMachine(func(time.Duration) (Load, error) { return Load{}, unreadable })
	st, err := newWaiter(m.quiet(1.5, time.Minute), nil).wait(context.Background(), "round 1")
	if !errors.Is(err, unreadable) || st.quiet || !strings.Contains(err.Error(), "-quiet-load 0") {
		t.Errorf("wait with an unreadable load = %+v, %v; want the read's error, with the flag that measures without waiting", st, err)
	}
	m = newFakeMachine(constLoad(0.5))
	m.cpuErr = unreadable
	st, err = newWaiter(m.quiet(1.5, time.Minute), nil).wait(context.Background(), "round 1")
	if !errors.Is(err, unreadable) || st.quiet {
		t.Errorf("wait with unreadable CPU times = %+v, %v; want the read's error", st, err)
	}
}

func TestWaitCanceled(t *testing.T) {
	m := newFakeMachine(constLoad(4))
	w := newWaiter(m.quiet(1.5, time.Minute), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st, err := w.wait(ctx, "round 1"); !errors.Is(err, context.Canceled) || st.quiet {
		t.Errorf("wait = %+v, %v; want context.Canceled", st, err)
	}
}

// idRunner is a Runner that runs nothing: suite.runTrial is replaced.
type idRunner string

func (r idRunner) ID() string                                 { return string(r) }
func (r idRunner) Run(context.Context, Trial) (Sample, error) { return Sample{}, nil }

func TestMeasureWaitsBeforeEachRound(t *testing.T) {
	// Each round: the machine is loud at the first watch, quiet at the
	// second; its end is read while the trials' load is on it.
	phase := 0 // 0: before a round, 1: watched once, 2: after its trials
	m := newFakeMachine(func(time.Duration) (Load, error) {
		switch phase {
		case 0:
			phase = 1
			return Load{One: 2.5}, nil
		case 1:
			phase = 2
			return Load{One: 1.1}, nil
		default:
			phase = 0
			return Load{One: 1.9}, nil
		}
	})
	s := &suite{cfg: Config{Runs: 2, Log: testWriter{t}}}
	s.quiet = newWaiter(m.quiet(1.5, time.Minute), testWriter{t})
	s.runTrial = func(_ context.Context, r Runner, _ string, tr *Trial) (Sample, error) {
		m.events = append(m.events, "trial "+r.ID())
		return Sample{Records: tr.Records(), Wall: time.Second}, nil
	}
	c := trialCondition{First, 10, 20 * time.Millisecond}
	ms, err := s.measure(context.Background(), c, []Runner{idRunner("a"), idRunner("b")}, func(run string) Trial {
		return NewTrial(First, run, 20, 10, 20*time.Millisecond)
	})
	if err != nil {
		t.Fatal(err)
	}
	round := "cpu, sleep 5s, cpu, read 2.50, sleep 5s, cpu, read 1.10, trial %s, trial %s, read 1.90"
	want := strings.Join([]string{
		fmt.Sprintf(round, "a", "b"), // the warm-up
		fmt.Sprintf(round, "a", "b"), // round 1
		fmt.Sprintf(round, "b", "a"), // round 2: the order rotates
	}, ", ")
	if got := strings.Join(m.events, ", "); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	if len(ms) != 2 || len(ms[0].Samples) != 2 || len(ms[1].Samples) != 2 {
		t.Fatalf("measurements %+v, want two runners with two samples each", ms)
	}
	if len(s.rounds) != 3 {
		t.Fatalf("%d rounds recorded, want 3 (the warm-up and 2)", len(s.rounds))
	}
	for i, rd := range s.rounds {
		want := Round{Scenario: First, BatchSize: 10, Model: 20 * time.Millisecond, Index: i, Waited: 10 * time.Second,
			LoadBefore: Load{One: 1.1}, LoadAfter: Load{One: 1.9}, BusyBefore: 0.05, Quiet: true}
		if rd != want {
			t.Errorf("round %d = %+v, want %+v", i, rd, want)
		}
	}
}

// testWriter sends progress lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// quietRounds returns measured rounds of batch 100, model 0 ms, starting
// at the given 1-minute loads with 5 % of the CPU busy, quiet under
// threshold, after a warm-up round starting at warm.
func quietRounds(threshold, warm float64, starts ...float64) []Round {
	rounds := []Round{{Scenario: First, BatchSize: 100, Index: 0, Waited: 5 * time.Second,
		LoadBefore: Load{One: warm}, LoadAfter: Load{One: warm + 0.3}, BusyBefore: 0.05, Quiet: warm < threshold}}
	for i, l := range starts {
		rounds = append(rounds, Round{Scenario: First, BatchSize: 100, Index: i + 1, Waited: 10 * time.Second,
			LoadBefore: Load{One: l}, LoadAfter: Load{One: l + 0.4}, BusyBefore: 0.05, Quiet: l < threshold})
	}
	return rounds
}

func TestResultsQuiet(t *testing.T) {
	busy := quietRounds(1.5, 1.2, 1.1, 1.4)
	busy[2].BusyBefore, busy[2].Quiet = 0.45, false
	for _, tc := range []struct {
		name string
		r    Results
		ok   bool
		why  string
	}{
		{"quiet", Results{QuietLoad: 1.5, QuietBusy: 0.2, Rounds: quietRounds(1.5, 1.2, 1.1, 1.4)}, true, ""},
		{"a loud warm-up round does not count", Results{QuietLoad: 1.5, QuietBusy: 0.2, Rounds: quietRounds(1.5, 3.0, 1.1, 1.4)}, true, ""},
		{"a loud measured round", Results{QuietLoad: 1.5, QuietBusy: 0.2, Rounds: quietRounds(1.5, 1.2, 1.1, 2.2, 1.7)}, false,
			"2 of the 3 measured rounds started loud, with the 1-minute load average at or over 1.50 or over 20 % of the CPU busy (the first: first delivery, batch 100, model 0 ms, round 2, at load 2.20, 5 % busy)"},
		{"a measured round after busy CPU", Results{QuietLoad: 1.5, QuietBusy: 0.2, Rounds: busy}, false,
			"1 of the 2 measured rounds started loud, with the 1-minute load average at or over 1.50 or over 20 % of the CPU busy (the first: first delivery, batch 100, model 0 ms, round 2, at load 1.40, 45 % busy)"},
		{"not checked", Results{Rounds: quietRounds(0, 0.2, 0.3)}, false, "not checked"},
		{"not recorded", Results{QuietLoad: 1.5}, false, "not recorded per round"},
		{"only a warm-up", Results{QuietLoad: 1.5, Rounds: quietRounds(1.5, 1.0)}, false, "no measured round"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := tc.r.Quiet()
			if ok != tc.ok || !strings.Contains(why, tc.why) || (ok && why != "") {
				t.Errorf("Quiet() = %t, %q; want %t, %q", ok, why, tc.ok, tc.why)
			}
			md, js, err := CPUFiles(&tc.r)
			if tc.ok && (md != "bench-cpu.md" || js != "bench-cpu.json" || err != nil) {
				t.Errorf("CPUFiles = %s, %s, %v; want the published files", md, js, err)
			}
			if !tc.ok && (md != "bench-cpu-loaded.md" || js != "bench-cpu-loaded.json" || !errors.Is(err, ErrNotQuiet) || !strings.Contains(err.Error(), why)) {
				t.Errorf("CPUFiles = %s, %s, %v; want the loaded files and ErrNotQuiet saying %q", md, js, err, why)
			}
		})
	}
}

func TestCPUReportLoads(t *testing.T) {
	cpu := func(us int) Sample {
		return Sample{Records: 100, CPU: time.Duration(us*100) * time.Microsecond, Wall: time.Second}
	}
	r := &Results{Runs: 2, ThroughputRecords: 100, DefaultConcurrency: 100, QuietLoad: 1.5, QuietBusy: 0.2,
		Started: time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC), Ended: time.Date(2026, 12, 4, 3, 20, 0, 0, time.UTC),
		Throughput: []Measurement{
			{Runner: RunnerIdemq, Scenario: First, BatchSize: 100, Samples: []Sample{cpu(600), cpu(560)}},
			{Runner: RunnerPowertools, Scenario: First, BatchSize: 100, Samples: []Sample{cpu(1200), cpu(1100)}},
		},
		Rounds: quietRounds(1.5, 2.0, 1.1, 1.4)}
	var b strings.Builder
	if err := CPUReport(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"**A quiet machine**: every measured round started with the 1-minute load average under 1.50 and under 20 % of the machine's CPU busy in the 5 s before it, while the run idled; " +
			"at the 2 measured rounds' starts the 1-minute load average was 1.10–1.40 and the machine's CPU 5 % busy, at their ends the load 1.50–1.80; waiting for a quiet machine took 25s of the run.",
		"| batch | model | warm-up | round 1 | round 2 |",
		"| 100 | 0 ms | **2.00, 5 %** → 2.30 (5s) | 1.10, 5 % → 1.50 (10s) | 1.40, 5 % → 1.80 (10s) |",
		"| 100 | 0 ms | whole batch | 580 | 1150 | 0.50 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}

	r.Rounds = quietRounds(1.5, 1.0, 1.1, 1.9)
	b.Reset()
	if err := CPUReport(&b, r); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	for _, want := range []string{
		"**Not a quiet machine's figures**: 1 of the 2 measured rounds started loud, with the 1-minute load average at or over 1.50 or over 20 % of the CPU busy (the first: first delivery, batch 100, model 0 ms, round 2, at load 1.90, 5 % busy)",
		"| 100 | 0 ms | 1.00, 5 % → 1.30 (5s) | 1.10, 5 % → 1.50 (10s) | **1.90, 5 %** → 2.30 (10s) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "A quiet machine") {
		t.Errorf("a loud run's report calls the machine quiet:\n%s", out)
	}
}
