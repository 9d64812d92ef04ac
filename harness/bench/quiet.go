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
)

// A quiet machine. Powertools' CPU per record rises with the machine's
// load far more than idemq's (docs/benchmarks.md: ratios of 0.25–0.33 at
// load averages of 9–13, 0.41–0.52 at 3.6–8.5, 0.39–0.54 in an
// independent run under 1.5), and pairing by round takes out the load's
// drift, not its level. So a run can wait before each round until the
// 1-minute load average is under a threshold (Quiet), records the load
// at every round's start and end (Round), and calls its tables quiet
// only when every measured round started under the threshold
// (Results.Quiet).

// DefaultQuietLoad is the 1-minute load average under which the command
// starts a round when not told otherwise (`-quiet-load`): 1.5, on the
// 2 vCPUs of the machine the published figures are measured on, where a
// run's own trials keep about two threads busy. The independent run of
// issue 34 started under it.
const DefaultQuietLoad = 1.5

// DefaultQuietTimeout is how long one wait for a quiet machine lasts at
// most when Quiet.Timeout is not set.
const DefaultQuietTimeout = 30 * time.Minute

// quietPoll is how often the load is read while waiting: the kernel
// updates its averages every 5 seconds.
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

// Quiet says whether a run waits for a quiet machine before each round,
// and how. The zero value does not wait: the rounds' load is still
// recorded, and no table of the run is called quiet.
type Quiet struct {
	// Load is the 1-minute load average under which a round may start.
	// Defaults to 0: no waiting.
	Load float64
	// Timeout bounds one wait. When it passes with the load still at or
	// over Load, the round starts anyway, marked as not quiet, and later
	// rounds no longer wait: the run can no longer be called quiet.
	// Defaults to DefaultQuietTimeout.
	Timeout time.Duration
	// ReadLoad reads the load averages. Defaults to ReadLoad.
	ReadLoad func() (Load, error)
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
	// Quiet: the round started with the 1-minute load average under
	// Results.QuietLoad, which was not 0.
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
	if q.Timeout <= 0 {
		q.Timeout = DefaultQuietTimeout
	}
	if q.ReadLoad == nil {
		q.ReadLoad = ReadLoad
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

// wait returns once the 1-minute load average is under the threshold
// (the round starts quiet), at once when waiting is off or was given up
// (the round is quiet if the load is under the threshold all the same),
// or when the timeout passes (not quiet). It returns the load the round
// starts at and how long it waited. Without a threshold a load that
// cannot be read is recorded as zero; with one it is an error, since
// the round could not be shown to start quiet.
func (w *waiter) wait(ctx context.Context, what string) (Load, time.Duration, bool, error) {
	if w.q.Load <= 0 {
		l, _ := w.q.ReadLoad()
		return l, 0, false, nil
	}
	start := w.q.Now()
	logged := start
	for {
		l, err := w.q.ReadLoad()
		if err != nil {
			return Load{}, 0, false, fmt.Errorf("%w (to measure without waiting for a quiet machine, and have the table marked not quiet: -quiet-load 0)", err)
		}
		waited := w.q.Now().Sub(start)
		if l.One < w.q.Load {
			if waited > 0 {
				fmt.Fprintf(w.log, "bench: quiet (load %s) after %s; %s\n", l, waited.Round(time.Second), what)
			}
			return l, waited, true, nil
		}
		if w.gaveUp {
			return l, waited, false, nil
		}
		if waited >= w.q.Timeout {
			w.gaveUp = true
			fmt.Fprintf(w.log, "bench: the machine stayed loud (load %s, want the 1-minute average under %.2f) for %s: %s starts anyway; no more waiting, and the run will not be called quiet\n",
				l, w.q.Load, waited.Round(time.Second), what)
			return l, waited, false, nil
		}
		if waited == 0 || w.q.Now().Sub(logged) >= quietLogEvery {
			logged = w.q.Now()
			fmt.Fprintf(w.log, "bench: waiting for a quiet machine (load %s, want the 1-minute average under %.2f; %s so far, at most %s) before %s\n",
				l, w.q.Load, waited.Round(time.Second), w.q.Timeout, what)
		}
		if err := w.q.Sleep(ctx, quietPoll); err != nil {
			return l, w.q.Now().Sub(start), false, err
		}
	}
}

// sleepCtx waits d, or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Quiet reports whether r's figures may be called a quiet machine's: the
// load was checked before each round (QuietLoad is not 0) and every
// measured round started under it. When not, the reason says why.
func (r *Results) Quiet() (bool, string) {
	if len(r.Rounds) == 0 {
		return false, "the load was not recorded per round (a run made before the bench waited for a quiet machine)"
	}
	if r.QuietLoad <= 0 {
		return false, "the load was not checked before each round (-quiet-load 0)"
	}
	measured, loud := 0, 0
	var worst Round
	for _, rd := range r.Rounds {
		if !rd.Measured() {
			continue
		}
		measured++
		if !rd.Quiet {
			loud++
			if loud == 1 || rd.LoadBefore.One > worst.LoadBefore.One {
				worst = rd
			}
		}
	}
	switch {
	case measured == 0:
		return false, "no measured round was recorded"
	case loud > 0:
		return false, fmt.Sprintf("%d of the %d measured rounds started with the 1-minute load average at or over %.2f (the highest %.2f: %s, batch %d, model %s, round %d)",
			loud, measured, r.QuietLoad, worst.LoadBefore.One, worst.Scenario, worst.BatchSize, fmtModel(worst.Model), worst.Index)
	}
	return true, ""
}

// fmtModel formats a model call's duration as the reports do: "20 ms".
func fmtModel(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

// ErrNotQuiet is the error of CPUFiles for a run that was not quiet.
var ErrNotQuiet = errors.New("bench: not a quiet machine")

// CPUFiles returns the file names, under the results directory, that a
// -cpu-only run's report (CPUReport) and samples go to: bench-cpu.md and
// bench-cpu.json for a quiet run (Results.Quiet), bench-cpu-loaded.md
// and bench-cpu-loaded.json otherwise, so that a run on a loaded machine
// never replaces the published one. err, for a run that was not quiet,
// says why (errors.Is ErrNotQuiet).
func CPUFiles(r *Results) (md, json string, err error) {
	if ok, why := r.Quiet(); !ok {
		return "bench-cpu-loaded.md", "bench-cpu-loaded.json", fmt.Errorf("%w: %s", ErrNotQuiet, why)
	}
	return "bench-cpu.md", "bench-cpu.json", nil
}
