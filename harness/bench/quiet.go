package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/idemq/idemq/queue"
)

// A quiet machine. Powertools' CPU per record rises with the machine's
// load far more than idemq's (results/bench-clock.md: ratios of 0.25–0.33 at
// load averages of 9–13, 0.41–0.52 at 3.6–8.5, 0.39–0.54 in an
// independent run under 1.5), and pairing by round takes out the load's
// drift, not its level. So a run can wait before each round until the
// machine is quiet (Quiet): the 1-minute load average under a threshold,
// and, while the run itself idles, little of the machine's CPU busy (a
// 1-minute load of 1.4 may still be one other process taking a whole
// CPU). It records both at every round's start, and the load at its end
// (Round), and calls its tables quiet only when every measured round
// started quiet (Results.Quiet).

// DefaultQuietLoad is the 1-minute load average under which the command
// starts a round when not told otherwise (`-quiet-load`): 1.5, on the
// 2 vCPUs of the machine the published figures are measured on, where a
// run's own trials keep about two threads busy. The independent run of
// issue 34 started under it.
const DefaultQuietLoad = 1.5

// DefaultQuietBusy is the share of the machine's CPU time that may be
// busy while a run idles before a round, when Quiet.Busy is not set: a
// fifth, less than one other process keeping one of 2 vCPUs busy.
const DefaultQuietBusy = 0.2

// DefaultQuietTimeout is how long one wait for a quiet machine lasts at
// most when Quiet.Timeout is not set.
const DefaultQuietTimeout = 30 * time.Minute

// quietPoll is how often the load is read while waiting, and how long
// the machine's CPU is watched before a round starts: the kernel updates
// its averages every 5 seconds.
const quietPoll = 5 * time.Second

// quietLogEvery is how often a wait says it is still waiting.
const quietLogEvery = time.Minute

// Load is the machine's load averages over 1, 5 and 15 minutes.
type Load struct {
	One, Five, Fifteen float64
}

// String formats l as /proc/loadavg does: "0.42 0.80 1.10".
func (l Load) String() string {
	return fmt.Sprintf("%.2f %.2f %.2f", l.One, l.Five, l.Fifteen)
}

// ParseLoad reads the load averages from the text of /proc/loadavg (its
// first three fields).
func ParseLoad(s string) (Load, error) {
	f := strings.Fields(s)
	if len(f) < 3 {
		return Load{}, fmt.Errorf("bench: load averages %q: want three numbers", s)
	}
	var v [3]float64
	for i := range v {
		x, err := strconv.ParseFloat(f[i], 64)
		if err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return Load{}, fmt.Errorf("bench: load averages %q: field %d is not a load", s, i+1)
		}
		v[i] = x
	}
	return Load{One: v[0], Five: v[1], Fifteen: v[2]}, nil
}

// ReadLoad reads the machine's load averages from /proc/loadavg.
func ReadLoad() (Load, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return Load{}, fmt.Errorf("bench: the load average: %w", err)
	}
	return ParseLoad(string(b))
}

// CPUTimes is the CPU time of every CPU of the machine since it started,
// in the kernel's ticks, as /proc/stat's first line gives it.
type CPUTimes struct {
	Busy  uint64 // user, nice, system, irq, softirq and steal
	Total uint64 // Busy, idle and iowait
}

// BusyShare is the share of the machine's CPU time that was busy from a
// to b, 0 to 1; 0 when no time passed between them.
func BusyShare(a, b CPUTimes) float64 {
	if b.Total <= a.Total || b.Busy < a.Busy {
		return 0
	}
	return min(1, float64(b.Busy-a.Busy)/float64(b.Total-a.Total))
}

// ParseCPUTimes reads the machine's CPU times from the text of /proc/stat
// (its "cpu" line: user, nice, system, idle, iowait, irq, softirq, steal;
// guest time is within user's).
func ParseCPUTimes(s string) (CPUTimes, error) {
	line, _, _ := strings.Cut(s, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return CPUTimes{}, fmt.Errorf("bench: CPU times %.80q: want a cpu line of eight counters", line)
	}
	var v [8]uint64
	for i := range v {
		x, err := strconv.ParseUint(f[i+1], 10, 64)
		if err != nil {
			return CPUTimes{}, fmt.Errorf("bench: CPU times %.80q: counter %d is not a number", line, i+1)
		}
		v[i] = x
	}
	busy := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	return CPUTimes{Busy: busy, Total: busy + v[3] + v[4]}, nil
}

// ReadCPUTimes reads the machine's CPU times from /proc/stat.
func ReadCPUTimes() (CPUTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPUTimes{}, fmt.Errorf("bench: the CPU times: %w", err)
	}
	return ParseCPUTimes(string(b))
}

// Quiet says whether a run waits for a quiet machine before each round,
// and how. The zero value does not wait: the rounds' load is still
// recorded, and no table of the run is called quiet.
type Quiet struct {
	// Load is the 1-minute load average under which a round may start.
	// Defaults to 0: no waiting.
	Load float64
	// Busy is the share of the machine's CPU time, 0 to 1, under which a
	// round may start, watched for quietPoll (5 s) while the run idles
	// before it: what other work takes. Defaults to DefaultQuietBusy;
	// 1 or more: not checked.
	Busy float64
	// Timeout bounds one wait. When it passes with the machine still
	// loud, the round starts anyway, marked as not quiet, and later
	// rounds no longer wait: the run can no longer be called quiet.
	// Defaults to DefaultQuietTimeout.
	Timeout time.Duration
	// ReadLoad reads the load averages. Defaults to ReadLoad.
	ReadLoad func() (Load, error)
	// ReadCPU reads the machine's CPU times. Defaults to ReadCPUTimes.
	ReadCPU func() (CPUTimes, error)
	// Now is the clock. Defaults to time.Now.
	Now func() time.Time
	// Sleep waits d, or until ctx ends with its error. Defaults to a
	// timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Round is one round of one condition: every runner once, in turns.
type Round struct {
	Scenario  Scenario
	BatchSize int
	Model     time.Duration
	// Index is 0 for the discarded warm-up round, 1 to Runs for the
	// measured ones.
	Index int
	// Waited is how long the round waited for a quiet machine.
	Waited time.Duration
	// LoadBefore is the load when the round started (after the wait),
	// LoadAfter when its last trial ended.
	LoadBefore, LoadAfter Load
	// BusyBefore is the share of the machine's CPU time busy in the 5 s
	// before the round started, while the run idled; -1: not watched
	// (the run did not wait).
	BusyBefore float64
	// Quiet: the round started with the 1-minute load average under
	// Results.QuietLoad, which was not 0, and BusyBefore under
	// Results.QuietBusy.
	Quiet bool
}

// Measured reports whether the round's samples are in the results (it
// is not the warm-up round).
func (r Round) Measured() bool { return r.Index > 0 }

// waiter waits for a quiet machine before each round, as its Quiet says;
// it gives up waiting for good after its first timeout.
type waiter struct {
	q      Quiet
	log    io.Writer
	gaveUp bool
}

func newWaiter(q Quiet, log io.Writer) *waiter {
	if q.Busy <= 0 {
		q.Busy = DefaultQuietBusy
	}
	if q.Timeout <= 0 {
		q.Timeout = DefaultQuietTimeout
	}
	if q.ReadLoad == nil {
		q.ReadLoad = ReadLoad
	}
	if q.ReadCPU == nil {
		q.ReadCPU = ReadCPUTimes
	}
	if q.Now == nil {
		q.Now = time.Now
	}
	if q.Sleep == nil {
		q.Sleep = sleepCtx
	}
	if log == nil {
		log = io.Discard
	}
	return &waiter{q: q, log: log}
}

// start is how a round starts: the load and the machine's busy share
// then, how long it waited, whether it starts quiet.
type start struct {
	load   Load
	busy   float64 // -1: not watched
	waited time.Duration
	quiet  bool
}

// wait watches the machine for quietPoll at a time, while the run idles,
// and returns once the 1-minute load average is under the threshold and
// the busy share of the machine's CPU over the last watch under its own
// (the round starts quiet); after one watch when waiting was given up
// (quiet if both are under their thresholds all the same); or when the
// timeout passes (not quiet). Without a threshold it reads the load and
// returns at once, not quiet, a load that cannot be read being recorded
// as zero; with one, a load or CPU time that cannot be read is an error,
// since the round could not be shown to start quiet.
func (w *waiter) wait(ctx context.Context, what string) (start, error) {
	if w.q.Load <= 0 {
		l, _ := w.q.ReadLoad()
		return start{load: l, busy: -1}, nil
	}
	fail := func(err error) (start, error) {
		return start{busy: -1}, fmt.Errorf("%w (to measure without waiting for a quiet machine, and have the table marked not quiet: -quiet-load 0)", err)
	}
	begin := w.q.Now()
	logged := begin
	cpu0, err := w.q.ReadCPU()
	if err != nil {
		return fail(err)
	}
	for {
		if err := w.q.Sleep(ctx, quietPoll); err != nil {
			return start{busy: -1, waited: w.q.Now().Sub(begin)}, err
		}
		cpu1, err := w.q.ReadCPU()
		if err != nil {
			return fail(err)
		}
		l, err := w.q.ReadLoad()
		if err != nil {
			return fail(err)
		}
		st := start{load: l, busy: BusyShare(cpu0, cpu1), waited: w.q.Now().Sub(begin)}
		cpu0 = cpu1
		if l.One < w.q.Load && st.busy < w.q.Busy {
			st.quiet = true
			if st.waited > quietPoll {
				fmt.Fprintf(w.log, "bench: quiet (load %s, CPU %.0f %% busy) after %s; %s\n", l, 100*st.busy, st.waited.Round(time.Second), what)
			}
			return st, nil
		}
		if w.gaveUp {
			return st, nil
		}
		if st.waited >= w.q.Timeout {
			w.gaveUp = true
			fmt.Fprintf(w.log, "bench: the machine stayed loud (load %s, CPU %.0f %% busy; want the 1-minute load under %.2f and under %.0f %% busy) for %s: %s starts anyway; no more waiting, and the run will not be called quiet\n",
				l, 100*st.busy, w.q.Load, 100*w.q.Busy, st.waited.Round(time.Second), what)
			return st, nil
		}
		if st.waited == quietPoll || w.q.Now().Sub(logged) >= quietLogEvery {
			logged = w.q.Now()
			fmt.Fprintf(w.log, "bench: waiting for a quiet machine (load %s, CPU %.0f %% busy; want the 1-minute load under %.2f and under %.0f %% busy; %s so far, at most %s) before %s\n",
				l, 100*st.busy, w.q.Load, 100*w.q.Busy, st.waited.Round(time.Second), w.q.Timeout, what)
		}
	}
}

// sleepCtx waits d, or until ctx ends (then ctx's error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	if !queue.Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
}

// fmtModel formats a model call's duration as the reports do: "20 ms".
func fmtModel(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

// ErrNotQuiet is the error of CPUFiles for a run that was not quiet.
var ErrNotQuiet = errors.New("bench: not a quiet machine")
