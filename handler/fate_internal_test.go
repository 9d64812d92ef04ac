package handler

import (
	"errors"
	"fmt"
	"testing"

	"github.com/idemq/idemq/idem"
)

// The zero fate, and anything decide does not recognise, comes back.
func TestZeroFateRetries(t *testing.T) {
	t.Parallel()
	var f fate
	if f.acked() || f.decided() {
		t.Fatalf("the zero fate is acknowledged or decided: %+v", f)
	}
	if op, err := f.cause(); op != idem.OpRun || !errors.Is(err, ErrNoOutcome) {
		t.Errorf("the zero fate's cause is %s %v, want run ErrNoOutcome", op, err)
	}
	for _, a := range []attempt{{}, {stage: 99}, {stage: stageCrashed}, {stage: stageKey}, {stage: stageNotStarted}} {
		if f := decide(a); f.acked() {
			t.Errorf("decide(%+v) is acknowledged", a)
		} else if _, err := f.cause(); err == nil {
			t.Errorf("decide(%+v) comes back without a reason", a)
		}
	}
}

// decide acknowledges a claim exactly when its outcome proves the key
// settled: executed and stored (or completed without a result too large
// to store), replayed, or superseded by a claim that completed the key.
// Every other (outcome, error) combination comes back with a reason,
// those nobody foresaw (an Outcome 0 with no error, an unknown Outcome)
// included.
func TestDecideClaimFailsClosed(t *testing.T) {
	t.Parallel()
	errs := map[string]error{
		"nil":          nil,
		"plain":        errors.New("boom"),
		"claim":        &idem.Error{Op: idem.OpClaim, Err: errors.New("down")},
		"run":          &idem.Error{Op: idem.OpRun, Err: errors.New("failed")},
		"too large":    &idem.Error{Op: idem.OpComplete, Err: idem.ErrResultTooLarge},
		"lease lost":   &idem.Error{Op: idem.OpComplete, Err: idem.ErrLeaseLost},
		"unreadable":   &idem.Error{Op: idem.OpReplay, Err: idem.ErrUnreadableResult},
		"wrapped late": fmt.Errorf("x: %w", idem.ErrResultTooLarge),
	}
	outcomes := []idem.Outcome{0, idem.Executed, idem.Replayed, idem.InProgress, idem.Superseded, idem.NotStored, 6, -1, 99}
	holders := []idem.Status{"", idem.StatusCompleted, idem.StatusInProgress, "ODD"}
	for _, o := range outcomes {
		for name, err := range errs {
			for _, omitted := range []bool{false, true} {
				for _, holder := range holders {
					res := idem.Result{Outcome: o, Value: []byte("v"), Omitted: omitted, Holder: holder}
					want := false
					switch o {
					case idem.Executed:
						want = err == nil || (omitted && errors.Is(err, idem.ErrResultTooLarge))
					case idem.Replayed:
						want = err == nil
					case idem.Superseded:
						want = holder == idem.StatusCompleted
					}
					f := decide(attempt{stage: stageClaimed, res: res, err: err})
					if f.acked() != want {
						t.Errorf("outcome %v, error %s, omitted %v, holder %q: acknowledged %v, want %v", o, name, omitted, holder, f.acked(), want)
					}
					if f.acked() {
						continue
					}
					if f.verdict != retry {
						t.Errorf("outcome %v, error %s: verdict %d, want retry", o, name, f.verdict)
					}
					if _, cause := f.cause(); cause == nil {
						t.Errorf("outcome %v, error %s: comes back without a reason", o, name)
					}
					if err != nil && o != idem.InProgress && o != idem.Superseded && !errors.Is(f.reason, err) {
						t.Errorf("outcome %v, error %s: reason %v does not wrap the error", o, name, f.reason)
					}
				}
			}
		}
	}
	for _, o := range []idem.Outcome{0, 99} {
		f := decide(attempt{stage: stageClaimed, res: idem.Result{Outcome: o}})
		if f.acked() || f.reason == nil {
			t.Errorf("outcome %v without an error: %+v, want a retry with a reason", o, f)
		}
	}
}

// A leader's fate is adopted only when it settled the key or found it in
// progress; a payload that differs fails, and nothing is replayed to a
// hook as an empty result.
func TestAdoption(t *testing.T) {
	t.Parallel()
	done := claimedFate(idem.Result{Outcome: idem.Executed, Value: []byte("v")}, nil)
	if f, ok := adoption("a", "b", done, fromLeader); !ok || f.acked() || !errors.Is(f.reason, idem.ErrPayloadMismatch) {
		t.Errorf("another payload: %+v %v", f, ok)
	}
	if f, ok := adoption("a", "a", done, fromCache); !ok || !f.acked() || f.work != workReplayed || string(f.value) != "v" || f.from != fromCache || f.tookOver {
		t.Errorf("a settled leader: %+v %v", f, ok)
	}
	for name, leader := range map[string]fate{
		"zero":    {},
		"failed":  retried(idem.OpRun, errors.New("x")),
		"skipped": decide(attempt{stage: stageNotStarted, err: ErrDeadline}),
		"keyless": decide(attempt{stage: stageKeyless}),
	} {
		if f, ok := adoption("a", "a", leader, fromLeader); ok {
			t.Errorf("%s leader adopted: %+v", name, f)
		}
	}
	busy := claimedFate(idem.Result{Outcome: idem.InProgress}, nil)
	if f, ok := adoption("", "a", busy, fromLeader); !ok || f.acked() || f.work != workInProgress || !errors.Is(f.reason, idem.ErrInProgress) {
		t.Errorf("an in-progress leader: %+v %v", f, ok)
	}
	nothing, _ := adoption("a", "a", claimedFate(idem.Result{Outcome: idem.Replayed, Omitted: true}, nil), fromLeader)
	if f := withNothingToReplay(nothing, true); f.acked() || !errors.Is(f.reason, idem.ErrResultTooLarge) {
		t.Errorf("nothing to replay to a hook: %+v", f)
	}
	if f := withNothingToReplay(nothing, false); !f.acked() {
		t.Errorf("nothing to replay, no hook: %+v", f)
	}
}

// The FIFO gate blocks what comes after a failure: in the batch, or in
// the failed record's group only.
func TestFIFOGate(t *testing.T) {
	t.Parallel()
	var none *fifoGate
	none.fail(0, "A")
	if none.blocks(1, "A") {
		t.Error("a nil gate blocked")
	}
	g := newFIFOGate(false)
	g.fail(3, "A")
	g.fail(5, "A")
	for i, want := range map[int]bool{2: false, 3: false, 4: true, 6: true} {
		if g.blocks(i, "B") != want {
			t.Errorf("batch-wide: blocks(%d, B) = %v, want %v", i, !want, want)
		}
	}
	g = newFIFOGate(true)
	g.fail(3, "A")
	if g.blocks(4, "B") || !g.blocks(4, "A") || g.blocks(2, "A") {
		t.Error("group isolation: a failure in A blocked B, or not A after it, or A before it")
	}
}
