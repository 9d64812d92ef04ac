package sim

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/idemq/idemq/idem"
)

// check tests the invariants that hold after every step.
func (w *world) check() error {
	if w.broken != nil {
		return w.broken
	}
	calling := map[string]*worker{}
	for _, wk := range w.workers {
		if !wk.busy || !wk.calling || wk.stalled {
			continue
		}
		if other := calling[wk.ex.key]; other != nil {
			return fmt.Errorf("w%d (%s) and w%d (%s) are both in the provider call for %s", other.id, other.ex, wk.id, wk.ex, wk.ex.key)
		}
		calling[wk.ex.key] = wk
	}
	for _, key := range w.keys {
		if err := w.checkCalls(key); err != nil {
			return err
		}
		if err := w.checkRecord(key); err != nil {
			return err
		}
	}
	return nil
}

// checkCalls: a key reaches the provider once, plus once for each
// execution that called it and will not store its result, for a reason
// the allowance names (a crash, a stall past the lease, a refused
// Complete).
func (w *world) checkCalls(key string) error {
	allowed := w.allowances[key]
	if n := w.calls[key]; n > 1+len(allowed) {
		why := []string{"none"}
		if len(allowed) > 0 {
			why = why[:0]
			for _, ex := range allowed {
				why = append(why, ex.String()+" "+ex.allowance)
			}
		}
		return fmt.Errorf("%s reached the provider %d times; allowed: once, plus one for each of: %s", key, n, strings.Join(why, "; "))
	}
	return nil
}

// checkRecord: a COMPLETED record holds the result of the execution whose
// completion the store applied, with that execution's staged writes, and
// stays so.
func (w *world) checkRecord(key string) error {
	rec, ok := w.get(w.ikey(key))
	first := w.completedBy[key]
	if !ok || rec.Status != idem.StatusCompleted {
		if first != nil {
			return fmt.Errorf("%s was COMPLETED by %s and is now %s", key, first, w.describe(rec, ok))
		}
		return nil
	}
	x := w.byOwner[rec.Owner]
	if x == nil {
		return fmt.Errorf("%s is %s", key, w.describe(rec, ok))
	}
	if first == nil {
		w.completedBy[key] = x
	} else if first != x {
		return fmt.Errorf("%s was COMPLETED by %s and is now %s", key, first, w.describe(rec, ok))
	}
	return w.holds(key, x, rec, ok)
}

// holds reports whether key's record is x's completion, applied by the
// store, with x's result and every write x staged.
func (w *world) holds(key string, x *exec, rec idem.Record, ok bool) error {
	switch {
	case !ok || rec.Status != idem.StatusCompleted || rec.Owner != x.owner:
		return fmt.Errorf("%s is %s, not COMPLETED by %s", key, w.describe(rec, ok), x)
	case !x.completed:
		return fmt.Errorf("%s is COMPLETED by %s, whose Complete the store never applied", key, x)
	case !bytes.Equal(rec.Result, x.value):
		return fmt.Errorf("%s holds %q, but %s's work returned %q", key, rec.Result, x, x.value)
	}
	if n, twice := x.commits(w.store); n != x.staged || twice {
		return fmt.Errorf("%s is COMPLETED by %s with %d of its %d staged writes (one twice: %v)", key, x, n, x.staged, twice)
	}
	return nil
}

// checkExec: an execution's staged writes are committed, each once, if and
// only if its completion was applied. It runs after each of ex's store
// requests and at the end.
func (w *world) checkExec(ex *exec) {
	var err error
	n, twice := ex.commits(w.store)
	switch {
	case twice:
		err = fmt.Errorf("%s's staged writes: one was committed twice", ex)
	case ex.completed && n != ex.staged:
		err = fmt.Errorf("%s's completion was applied with %d of its %d staged writes", ex, n, ex.staged)
	case !ex.completed && n > 0:
		err = fmt.Errorf("%s's staged writes: %d committed, but its completion was not applied", ex, n)
	}
	if err != nil && w.broken == nil {
		w.broken = err
	}
}

// fenced breaks the world if a write by ex's owner succeeded on a record
// the owner did not hold IN_PROGRESS (a retry of an applied Complete
// excepted).
func (w *world) fenced(ex *exec, op string, before idem.Record, held bool, err error, retry bool) {
	if err == nil && !retry && (!held || before.Owner != ex.owner || before.Status != idem.StatusInProgress) && w.broken == nil {
		w.broken = fmt.Errorf("%s's %s of %s succeeded on a record it did not hold: %s", ex, op, ex.key, w.describe(before, held))
	}
}

// checkAck tests a message the event source mapping just deleted. Its key
// must be COMPLETED with the result its batch handed on: the result of the
// batch's own execution, or of the one it replayed, whose completion the
// store applied with its staged writes. The one exception: an execution
// whose Complete was refused because another execution had completed the
// key (idem.Superseded with the holder COMPLETED) may have its message
// deleted; the key must then hold that execution's result. A Complete
// refused while the other owner still held the key IN_PROGRESS must not
// acknowledge: that owner may be working from an older delivery of the
// same message, and fail (seeds 12969, 62678, 80219 found it so).
func (w *world) checkAck(b *batch, m *message) error {
	ex := b.claims[m.key]
	rec, ok := w.get(w.ikey(m.key))
	who := fmt.Sprintf("%s (%s) was deleted after b%d", m.id, m.key, b.n)
	got, hooked := b.replays[m.id]
	switch {
	case ex == nil:
		return fmt.Errorf("%s, which never claimed its key", who)
	case ex.found != nil:
		if err := w.holds(m.key, ex.found, rec, ok); err != nil {
			return fmt.Errorf("%s, which replayed %s's result, but %w", who, ex.found, err)
		}
		if !hooked || !bytes.Equal(got, ex.found.value) {
			return fmt.Errorf("%s, which found %s's result %q, but the replay hook got %q (called: %v)", who, ex.found, ex.found.value, got, hooked)
		}
	case ex.completed:
		if err := w.holds(m.key, ex, rec, ok); err != nil {
			return fmt.Errorf("%s, whose %s completed, but %w", who, ex, err)
		}
		if hooked && !bytes.Equal(got, ex.value) {
			return fmt.Errorf("%s, a copy of %s's message, but the replay hook got %q", who, ex, got)
		}
	case ex.superseded != nil:
		w.stats.Superseded++
		w.logf("%s: %s's Complete found %s holding the key", who, ex, ex.superseded)
		if err := w.holds(m.key, ex.superseded, rec, ok); err != nil {
			return fmt.Errorf("%s, whose %s was superseded by %s, which had not completed the key: %w", who, ex, ex.superseded, err)
		}
	default:
		return fmt.Errorf("%s, but %s's result was not stored (claimed %v, called %v, Complete refused %v) and no other owner held the key at its Complete; the key is %s",
			who, ex, ex.claimed, ex.called, ex.refused, w.describe(rec, ok))
	}
	return nil
}

// final tests what must hold once everything is quiet: every key is
// COMPLETED, or dead-lettered, and reached the provider; every execution's
// staged writes agree with its completion.
func (w *world) final() error {
	for _, key := range w.keys {
		if w.dead[key] {
			continue
		}
		rec, ok := w.get(w.ikey(key))
		if !ok || rec.Status != idem.StatusCompleted {
			return fmt.Errorf("%s ended %s, want COMPLETED or dead-lettered", key, w.describe(rec, ok))
		}
		if w.calls[key] == 0 {
			return fmt.Errorf("%s is COMPLETED but never reached the provider", key)
		}
	}
	for _, ex := range w.execs {
		w.checkExec(ex)
	}
	return w.broken
}

// ikey is the store's key for the sim's key name.
func (w *world) ikey(key string) idem.Key {
	k, _ := idem.ClientKey(namespace, key)
	return k
}

// get reads key's record as the store holds it. The in-memory store fails
// only on an ended context.
func (w *world) get(key idem.Key) (idem.Record, bool) {
	rec, ok, _ := w.store.Get(context.Background(), key)
	return rec, ok
}
