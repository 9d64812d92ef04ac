package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
)

// The errors a client gets when the network fails a request.
var (
	errRefused = errors.New("sim: request refused before it reached the store")
	errLost    = errors.New("sim: no answer (the store applied the request); the client gave up")
	errStopped = errors.New("sim: the heartbeat has stopped")
)

// faultStore is one instance's way to the in-memory store. Each request
// yields to the scheduler first, so a crash or another instance can come
// between any two, and then meets the network: applied and answered;
// refused, not applied; or applied with its answer lost, after which the
// client gives up with an error or, like the AWS SDK and go-redis, sends
// the same request again (after another yield) and returns what that
// retry gets. It records what the invariants need.
//
// The store never sees the caller's context: its deadlines are wall-clock
// timers (idem.Do's settle deadline is the simulated clock's time plus 30
// s, enforced by the wall clock), which mean nothing in simulated time and
// would make a run depend on when it is run. The simulated network alone
// decides what becomes of a request.
type faultStore struct {
	w  *world
	wk *worker
}

// send carries one request: apply runs it against the store and records
// its effect; conflict is what dynamostore answers when the request meets
// another Region's write (conflicts); pause, if not nil, comes between a
// lost answer and the retry.
func (s *faultStore) send(o op, what string, apply, conflict func() error, pause func()) (answer, error) {
	w := s.w
	a := w.network(false)
	w.stats.Requests[o][a]++
	var err error
	switch a {
	case answered:
		err = apply()
	case refused:
		err = errRefused
	case conflicted:
		err = conflict()
	case lostGaveUp:
		w.logf("w%d %s → %v, answer lost", s.wk.id, what, apply())
		err = errLost
	case lostRetried:
		w.logf("w%d %s → %v, answer lost; retrying", s.wk.id, what, apply())
		if pause != nil {
			pause()
		}
		if w.retryConflicts() {
			w.stats.RetryConflicted++
			w.logf("w%d %s: the retry meets another Region's write", s.wk.id, what)
			err = conflict()
		} else {
			err = apply()
		}
	}
	w.logf("w%d %s (%s) → %v", s.wk.id, what, a, err)
	return a, err
}

// network is what the network makes of one request: answered; refused
// (always, with down: the store is down); applied with its answer lost,
// after which the client gives up or sends it again; or refused as a
// conflict with another Region's write.
func (w *world) network(down bool) answer {
	switch r := w.rng.Float64(); {
	case down || r < w.cfg.Refuse:
		return refused
	case r < w.cfg.Refuse+w.cfg.Lose:
		if w.rng.Float64() < w.cfg.GiveUp {
			return lostGaveUp
		}
		return lostRetried
	case r < w.cfg.Refuse+w.cfg.Lose+w.cfg.Conflict:
		return conflicted
	}
	return answered
}

// retryConflicts decides whether the retry of a request whose answer was
// lost meets another Region's write. Without conflicts it draws nothing,
// so a world without them runs as it did before they were simulated.
func (w *world) retryConflicts() bool {
	return w.cfg.Conflict > 0 && w.rng.Float64() < w.cfg.Conflict
}

func (s *faultStore) retryPause() { s.wk.yield(atRetry) }

// Claim implements idem.Store. It starts a new execution on the instance.
func (s *faultStore) Claim(_ context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	w, wk := s.w, s.wk
	w.endExec(wk)
	ex := w.newExec(wk, req)
	wk.ex = ex
	// The clock must not pass the lease while the request is on its way:
	// the lease, counted from before the claim, covers the whole work.
	wk.lease = req.LeaseUntil
	wk.yield(atRequest)
	var c idem.Claim
	_, err := s.send(opClaim, ex.String()+" claims "+ex.key, func() error {
		var err error
		c, err = w.store.Claim(context.Background(), req)
		if err == nil && c.Claimed && !ex.claimed {
			ex.claimed = true
			if c.Previous != nil {
				w.stats.TakeOvers++
				w.logf("%s takes %s over from %s", ex, ex.key, w.describe(*c.Previous, true))
			}
		}
		return err
	}, func() error {
		var err error
		if c, err = w.conflicts.claim(req); w.cfg.mutation == conflictClaims {
			c, err = idem.Claim{Claimed: true}, nil
		}
		return err
	}, s.retryPause)
	switch {
	case err != nil:
		wk.lease = time.Time{}
		return idem.Claim{}, err
	case !c.Claimed:
		wk.lease = time.Time{}
		if c.Record.Status == idem.StatusCompleted {
			ex.found = w.byOwner[c.Record.Owner]
			w.stats.Replays++
		} else {
			w.stats.InProgress++
		}
		w.logf("%s finds %s %s", ex, ex.key, w.describe(c.Record, true))
		return c, nil
	}
	if w.beating {
		ex.beat = newBeat()
		wk.beat.Store(ex.beat)
		wk.beatAlive = true
	}
	return c, nil
}

// Complete implements idem.Store, with the client's retries of it: the
// store's client, like the AWS SDK's retryer or go-redis, is a
// completion's one retry layer (idem.Do sends it once). Each attempt meets
// the network: answered, and the client returns the answer; refused, and
// the client sends it again after a yield, up to Config.ClientAttempts
// attempts in all; applied with its answer lost, and the client either
// gives up with an error or sends it again the same way. The first
// refusal may find the store down for the execution (Config.Outage):
// every later attempt is refused too, until the client gives up.
func (s *faultStore) Complete(_ context.Context, c idem.Completion) error {
	w, wk := s.w, s.wk
	ex := w.execOf(c.Owner)
	o := opComplete
	if len(c.Writes) > 0 {
		o = opCompleteStaged
	}
	apply := func() error {
		before, held := w.get(c.Key)
		err := w.store.Complete(context.Background(), c)
		retry := held && before.Status == idem.StatusCompleted && before.Owner == c.Owner && before.Encoding == c.Encoding && bytes.Equal(before.Result, c.Result)
		w.fenced(ex, "Complete", before, held, err, retry)
		if err == nil && !ex.completed {
			ex.completed = true
			if ex.staged > 0 {
				w.stats.Staged++
			}
			if ex.refused {
				w.stats.CompleteRetried++
				w.logf("%s: its Complete, refused before, was applied when the client sent it again", ex)
			}
		}
		if errors.Is(err, idem.ErrLeaseLost) && held && before.Owner != c.Owner {
			ex.superseded = w.byOwner[before.Owner]
		}
		w.checkExec(ex)
		return err
	}
	var err error
	for attempt := 1; ; attempt++ {
		if attempt == 1 {
			wk.yield(atRequest)
		} else {
			wk.yield(atRetry)
		}
		if ex.completeRequests++; ex.completeRequests > w.cfg.ClientAttempts && w.broken == nil {
			w.broken = fmt.Errorf("%s sent its completion %d times: more than its client's %d attempts (one retry layer)",
				ex, ex.completeRequests, w.cfg.ClientAttempts)
		}
		w.stats.CompleteRequests++
		w.stats.MaxCompleteRequests = max(w.stats.MaxCompleteRequests, ex.completeRequests)
		a := w.network(ex.down)
		last := attempt == w.cfg.ClientAttempts
		if a == lostRetried && last {
			a = lostGaveUp // no attempt left to send it again
		}
		w.stats.Requests[o][a]++
		what := fmt.Sprintf("%s completes %s (attempt %d)", ex, ex.key, attempt)
		switch a {
		case answered:
			err = apply()
		case refused:
			err = errRefused
			if !ex.refused && w.rng.Float64() < w.cfg.Outage {
				ex.down = true
				w.logf("%s: the store is down for its Complete", ex)
			}
			ex.refused = true
		case conflicted:
			// Not applied, like a refusal: the client sends it again.
			if err = w.conflicts.complete(c); w.cfg.mutation == conflictApplies {
				err = nil
			}
			ex.refused = true
		case lostGaveUp:
			w.logf("w%d %s → %v, answer lost", wk.id, what, apply())
			err = errLost
		case lostRetried:
			w.logf("w%d %s → %v, answer lost; sending it again", wk.id, what, apply())
		}
		w.logf("w%d %s (%s) → %v", wk.id, what, a, err)
		if a == answered || a == lostGaveUp || ((a == refused || a == conflicted) && (last || err == nil)) {
			break
		}
	}
	if errors.Is(err, idem.ErrLeaseLost) {
		w.stats.FencedOff++
		if ex.refused {
			// Do does not release after a lost lease: it gives up here.
			w.gaveUp(ex)
		}
	}
	return err
}

// gaveUp notes that idem.Do gave up on ex's refused Complete: the key may
// reach the provider once more.
func (w *world) gaveUp(ex *exec) {
	if ex.called && !ex.completed && ex.allowance == "" {
		w.stats.CompleteGaveUp++
		w.allow(ex, "its Complete was refused")
	}
}

// Release implements idem.Store.
func (s *faultStore) Release(_ context.Context, key idem.Key, owner string) error {
	w, wk := s.w, s.wk
	ex := w.execOf(owner)
	if ex.refused {
		// Do releases after a completion it gave up on.
		w.gaveUp(ex)
	}
	wk.yield(atRequest)
	a, err := s.send(opRelease, ex.String()+" releases "+ex.key, func() error {
		before, held := w.get(key)
		err := w.store.Release(context.Background(), key, owner)
		w.fenced(ex, "Release", before, held, err, false)
		w.checkExec(ex)
		return err
	}, func() error { return w.conflicts.release(key, owner) }, s.retryPause)
	if ex.refused && (a == lostGaveUp || a == lostRetried) {
		w.stats.RefusedCompleteLostRelease++
	}
	return err
}

// Extend implements idem.Store. Only the heartbeat calls it, from its own
// goroutine, after the clock's gate let it through (see beat); the
// scheduler waits meanwhile. A heartbeat winding down after the work
// returned is refused without touching the world.
func (s *faultStore) Extend(ctx context.Context, e idem.Extension) error {
	w, wk := s.w, s.wk
	b := wk.beat.Load()
	if b == nil || !b.granted {
		return errStopped
	}
	b.granted = false
	ex := w.execOf(e.Owner)
	_, err := s.send(opExtend, fmt.Sprintf("%s extends %s to %s", ex, ex.key, e.LeaseUntil.Format(clockFormat)), func() error {
		before, held := w.get(e.Key)
		err := w.store.Extend(context.Background(), e)
		w.fenced(ex, "Extend", before, held, err, false)
		if err == nil && wk.ex == ex {
			rec, _ := w.get(e.Key)
			wk.lease = rec.LeaseUntil
		}
		return err
	}, func() error { return w.conflicts.extend(e) }, nil)
	b.answered <- beatAnswer{ctx: ctx, err: err}
	return err
}

// execOf is the execution of an owner token; an unknown one breaks the
// world.
func (w *world) execOf(owner string) *exec {
	if ex := w.byOwner[owner]; ex != nil {
		return ex
	}
	panic("sim: a store request by an owner that never claimed")
}
