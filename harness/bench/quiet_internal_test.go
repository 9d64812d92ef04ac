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

// fakeMachine is a clock that only sleeps move, and a load that is a
// function of the time slept so far.
type fakeMachine struct {
	now    time.Time
	start  time.Time
	load   func(since time.Duration) (Load, error)
	events []string // "read 2.00", "sleep 5s", and what else the test adds
}

func newFakeMachine(load func(since time.Duration) (Load, error)) *fakeMachine {
	t0 := time.Date(2026, 12, 4, 3, 0, 0, 0, time.UTC)
	return &fakeMachine{now: t0, start: t0, load: load}
}

func (m *fakeMachine) quiet(threshold float64, timeout time.Duration) Quiet {
	return Quiet{Load: threshold, Timeout: timeout,
		ReadLoad: func() (Load, error) {
			l, err := m.load(m.now.Sub(m.start))
			m.events = append(m.events, fmt.Sprintf("read %.2f", l.One))
			return l, err
		},
		Now: func() time.Time { return m.now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			m.events = append(m.events, "sleep "+d.String())
			m.now = m.now.Add(d)
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
	l, waited, quiet, err := w.wait(context.Background(), "round 1")
	if err != nil || !quiet || waited != 0 || l.One != 0.8 {
		t.Errorf("wait = %v, %s, %t, %v; want load 0.80 at once, quiet", l, waited, quiet, err)
	}
	if got := strings.Join(m.events, ", "); got != "read 0.80" {
		t.Errorf("events %q, want one read and no sleep", got)
	}
}

func TestWaitUntilQuiet(t *testing.T) {
	// Loud for the first 20 s, then quiet.
	m := newFakeMachine(func(since time.Duration) (Load, error) {
		if since < 20*time.Second {
			return Load{One: 3}, nil
		}
		return Load{One: 1.2}, nil
	})
	var log strings.Builder
	w := newWaiter(m.quiet(1.5, time.Minute), &log)
	l, waited, quiet, err := w.wait(context.Background(), "round 1")
	if err != nil || !quiet || waited != 20*time.Second || l.One != 1.2 {
		t.Errorf("wait = %v, %s, %t, %v; want load 1.20 after 20s, quiet", l, waited, quiet, err)
	}
	want := "read 3.00, sleep 5s, read 3.00, sleep 5s, read 3.00, sleep 5s, read 3.00, sleep 5s, read 1.20"
	if got := strings.Join(m.events, ", "); got != want {
		t.Errorf("events\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(log.String(), "waiting for a quiet machine (load 3.00 0.00 0.00, want the 1-minute average under 1.50") ||
		!strings.Contains(log.String(), "quiet (load 1.20 0.00 0.00) after 20s; round 1") {
		t.Errorf("the log does not say it waited, and for what:\n%s", log.String())
	}
}

func TestWaitTimesOutThenStopsWaiting(t *testing.T) {
	load := 2.0
	m := newFakeMachine(func(time.Duration) (Load, error) { return Load{One: load}, nil })
	w := newWaiter(m.quiet(1.5, time.Minute), nil)
	ctx := context.Background()

	l, waited, quiet, err := w.wait(ctx, "round 1")
	if err != nil || quiet || waited != time.Minute || l.One != 2 {
		t.Errorf("first wait = %v, %s, %t, %v; want load 2.00 after the 1m timeout, not quiet", l, waited, quiet, err)
	}
	// Given up: the next rounds read the load and do not wait.
	m.events = nil
	if l, waited, quiet, err := w.wait(ctx, "round 2"); err != nil || quiet || waited != 0 || l.One != 2 {
		t.Errorf("second wait = %v, %s, %t, %v; want load 2.00 at once, not quiet", l, waited, quiet, err)
	}
	load = 1.0
	if l, waited, quiet, err := w.wait(ctx, "round 3"); err != nil || !quiet || waited != 0 || l.One != 1 {
		t.Errorf("third wait = %v, %s, %t, %v; want load 1.00 at once, quiet", l, waited, quiet, err)
	}
	if got := strings.Join(m.events, ", "); got != "read 2.00, read 1.00" {
		t.Errorf("events after giving up %q, want reads and no sleep", got)
	}
}

func TestWaitOff(t *testing.T) {
	m := newFakeMachine(constLoad(0.3))
	w := newWaiter(m.quiet(0, time.Minute), nil)
	l, waited, quiet, err := w.wait(context.Background(), "round 1")
	if err != nil || quiet || waited != 0 || l.One != 0.3 {
		t.Errorf("wait = %v, %s, %t, %v; want the load recorded, no wait, not quiet (nothing was checked)", l, waited, quiet, err)
	}
	// Not waiting, a load that cannot be read is recorded as zero.
	unreadable := errors.New("no /proc")
	m.load = func(time.Duration) (Load, error) { return Load{}, unreadable }
	if l, _, quiet, err := w.wait(context.Background(), "round 2"); err != nil || quiet || l != (Load{}) {
		t.Errorf("wait = %v, %t, %v; want a zero load, not quiet, no error", l, quiet, err)
	}
}

func TestWaitUnreadableLoad(t *testing.T) {
	unreadable := errors.New("no /proc")
	m := newFakeMachine(func(time.Duration) (Load, error) { return Load{}, unreadable })
	w := newWaiter(m.quiet(1.5, time.Minute), nil)
	_, _, quiet, err := w.wait(context.Background(), "round 1")
	if !errors.Is(err, unreadable) || quiet || !strings.Contains(err.Error(), "-quiet-load 0") {
		t.Errorf("wait = %t, %v; want the read's error, with the flag that measures without waiting", quiet, err)
	}
}

func TestWaitCanceled(t *testing.T) {
	m := newFakeMachine(constLoad(4))
	w := newWaiter(m.quiet(1.5, time.Minute), nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, quiet, err := w.wait(ctx, "round 1"); !errors.Is(err, context.Canceled) || quiet {
		t.Errorf("wait = %t, %v; want context.Canceled", quiet, err)
	}
}

// idRunner is a Runner that runs nothing: suite.runTrial is replaced.
type idRunner string

func (r idRunner) ID() string                                 { return string(r) }
func (r idRunner) Run(context.Context, Trial) (Sample, error) { return Sample{}, nil }

func TestMeasureWaitsBeforeEachRound(t *testing.T) {
	// Each round: the machine is loud at the first read, quiet 5 s later;
	// its end is read while the trials' load is on it.
	var m *fakeMachine
	phase := 0 // 0: before a round, 1: waited, 2: after its trials
	m = newFakeMachine(func(time.Duration) (Load, error) {
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
	round := "read 2.50, sleep 5s, read 1.10, trial %s, trial %s, read 1.90"
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
		want := Round{Scenario: First, BatchSize: 10, Model: 20 * time.Millisecond, Index: i, Waited: 5 * time.Second,
			LoadBefore: Load{One: 1.1}, LoadAfter: Load{One: 1.9}, Quiet: true}
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
// at the given 1-minute loads, quiet under threshold, after a warm-up
// round starting at warm.
func quietRounds(threshold, warm float64, starts ...float64) []Round {
	rounds := []Round{{Scenario: First, BatchSize: 100, Index: 0, LoadBefore: Load{One: warm}, LoadAfter: Load{One: warm + 0.3}, Quiet: warm < threshold}}
	for i, l := range starts {
		rounds = append(rounds, Round{Scenario: First, BatchSize: 100, Index: i + 1, Waited: 10 * time.Second,
			LoadBefore: Load{One: l}, LoadAfter: Load{One: l + 0.4}, Quiet: l < threshold})
	}
	return rounds
}

func TestResultsQuiet(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Results
		ok   bool
		why  string
	}{
		{"quiet", Results{QuietLoad: 1.5, Rounds: quietRounds(1.5, 1.2, 1.1, 1.4)}, true, ""},
		{"a loud warm-up round does not count", Results{QuietLoad: 1.5, Rounds: quietRounds(1.5, 3.0, 1.1, 1.4)}, true, ""},
		{"a loud measured round", Results{QuietLoad: 1.5, Rounds: quietRounds(1.5, 1.2, 1.1, 2.2, 1.7)}, false,
			"2 of the 3 measured rounds started with the 1-minute load average at or over 1.50 (the highest 2.20: first delivery, batch 100, model 0 ms, round 2)"},
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
	r := &Results{Runs: 2, ThroughputRecords: 100, DefaultConcurrency: 100, QuietLoad: 1.5,
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
		"**A quiet machine**: every measured round started with the 1-minute load average under 1.50; the 1-minute load average was 1.10–1.40 at the 2 measured rounds' starts and 1.50–1.80 at their ends, and waiting for a quiet machine took 20s of the run.",
		"| batch | model | warm-up | round 1 | round 2 |",
		"| 100 | 0 ms | **2.00** → 2.30 | 1.10 → 1.50 (10s) | 1.40 → 1.80 (10s) |",
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
		"**Not a quiet machine's figures**: 1 of the 2 measured rounds started with the 1-minute load average at or over 1.50 (the highest 1.90: first delivery, batch 100, model 0 ms, round 2)",
		"| 100 | 0 ms | 1.00 → 1.30 | 1.10 → 1.50 (10s) | **1.90** → 2.30 (10s) |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "A quiet machine") {
		t.Errorf("a loud run's report calls the machine quiet:\n%s", out)
	}
}
