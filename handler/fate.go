package handler

import (
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/idem"
)

// verdict is what the response tells Lambda about a record.
type verdict uint8

const (
	// retry: the message comes back (a batch item failure). The zero
	// value, so a record nobody decided comes back.
	retry verdict = iota
	// acknowledge: the message is deleted; its key is settled.
	acknowledge
	// skip: the record was not started (the deadline guard, or a FIFO
	// failure before it), or, on a FIFO queue, not acknowledged after a
	// failure; the message comes back like a retry's.
	skip
)

// work is what was done for a record's key, as the counts class it.
type work uint8

const (
	workNone       work = iota // nothing came of the record: failed or skipped
	workExecuted               // claimed and ran; the key is settled by it (or by the claim that superseded it)
	workReplayed               // a result settled before: stored, cached, or its leader's
	workInProgress             // another worker holds the key
	workKeyless                // ran without a claim (WithKeyless)
	workStepped                // a step handler's step settled it (NewStepHandler)
)

// source is where a replayed record's result came from, as the counts
// class it: each source is its own count, so a dashboard can stack them.
type source uint8

const (
	fromStore  source = iota // the key's completed record, answered to the claim
	fromCache                // the local cache (Config.CacheEntries): no store request
	fromLeader               // a copy's leader: earlier in the batch, or another batch of this process (flights)
)

// fate is the decision about one record: acknowledge, retry or skip, with
// its reason and the facts the batch's counts are made of. Its zero value
// is "retry: no outcome": a record is acknowledged only when a fate
// decided from its outcome says so. A record's fate is written in one
// place, batch.assign.
type fate struct {
	verdict verdict
	op      idem.Op // the stage reason comes from (RecordError.Op)
	reason  error   // why the message comes back; nil for an acknowledged one

	work      work
	value     []byte    // the result, handed to copies and the replay hook
	expiresAt time.Time // when the key's record expires; zero: unknown
	// leaseUntil is, for workInProgress, when the holder's lease ends: the
	// message's visibility is set to bring it back then (WithBackoff).
	leaseUntil time.Time

	from       source // for workReplayed: where the result came from
	tookOver   bool   // claimed over a passed lease or an expired record
	omitted    bool   // the result was too large to store; the key was completed without it
	superseded bool   // ran, and another claim, which completed the key, owns it
	backedOff  bool   // in progress; the message's visibility was changed
}

// acked reports whether the record's message may be deleted.
func (f *fate) acked() bool { return f.verdict == acknowledge }

// decided reports whether the fate is anything but the zero value's "no
// outcome".
func (f *fate) decided() bool { return f.verdict != retry || f.reason != nil || f.work != workNone }

// cause is why a record that is not acknowledged comes back, and the
// stage it comes from: for the zero fate, ErrNoOutcome.
func (f *fate) cause() (idem.Op, error) {
	if f.reason == nil {
		return idem.OpRun, ErrNoOutcome
	}
	return f.op, f.reason
}

// blockedByFIFO is f reported as a FIFO failure: not acknowledged because
// an earlier record failed. What was done keeps its count (its result is
// stored, so the redelivery replays it).
func (f fate) blockedByFIFO() fate {
	f.verdict, f.op, f.reason = skip, idem.OpRun, ErrFIFOBlocked
	return f
}

// retried is the fate of a record that failed at stage op with err. A nil
// err is no outcome.
func retried(op idem.Op, err error) fate {
	if err == nil {
		op, err = idem.OpRun, ErrNoOutcome
	}
	return fate{verdict: retry, op: op, reason: err}
}

// stage is how far a record got: what decide reads an attempt's error
// and result as.
type stage uint8

const (
	stageNone       stage = iota // nothing recorded
	stageKey                     // its key or fingerprint could not be read, or its typed body decoded: err
	stageNotStarted              // not started: err is ErrDeadline or ErrFIFOBlocked
	stageKeyless                 // ran without a claim (WithKeyless): res.Value and err are the function's
	stageClaimed                 // idem.Do returned res and err
	stageCrashed                 // the record's goroutine panicked (err wraps ErrPanic) or exited (ErrNoOutcome)
	stageStepped                 // a step handler's step returned err (NewStepHandler)
)

// attempt is what was tried for a record and what came of it.
type attempt struct {
	stage stage
	res   idem.Result
	err   error
}

// decide is the one function that maps what came of a record to its fate.
// It is pure: the replay hook, the cache and the back-off act on the fate
// it returns. Anything it does not recognise is retried.
func decide(a attempt) fate {
	switch a.stage {
	case stageKey:
		return retried(OpKey, a.err)
	case stageNotStarted:
		f := retried(idem.OpRun, a.err)
		f.verdict = skip
		return f
	case stageKeyless:
		if a.err != nil {
			return retried(idem.OpRun, a.err)
		}
		return fate{verdict: acknowledge, work: workKeyless}
	case stageCrashed:
		return retried(idem.OpRun, a.err)
	case stageStepped:
		// The step says whether the record's work is in hands that keep
		// it: nil, and only nil, acknowledges.
		if a.err != nil {
			return retried(idem.OpRun, a.err)
		}
		return fate{verdict: acknowledge, work: workStepped}
	case stageClaimed:
		return decideClaim(a.res, a.err)
	}
	return fate{}
}

// decideClaim is the fate of a record whose claim idem.Do returned res and
// err. The outcome decides, never the error alone: Do says from the
// completion's own answer whether the key is settled.
func decideClaim(res idem.Result, err error) fate {
	switch res.Outcome {
	case idem.Executed:
		// The work ran and its result is stored, or, too large, the key is
		// completed without it: a redelivery could only replay nothing, so
		// the message is acknowledged (loudly: claimAndRun logs it). Any
		// other error is a completion that did not settle the key.
		if err != nil && !(res.Omitted && errors.Is(err, idem.ErrResultTooLarge)) {
			return retried(opOf(err), err)
		}
		return fate{verdict: acknowledge, work: workExecuted, value: res.Value, expiresAt: res.ExpiresAt,
			tookOver: res.TookOver, omitted: res.Omitted}
	case idem.Superseded:
		// The work ran, but its lease had passed and another claim owns
		// the key. Only a completed key is settled: one still in progress
		// may yet fail, and that claim may be working from an older
		// delivery of this very message, whose failure would bring
		// nothing back. So this message comes back, to replay that
		// claim's result, wait for it, or run the work again.
		if res.Holder != idem.StatusCompleted {
			return retried(idem.OpComplete, err)
		}
		return fate{verdict: acknowledge, work: workExecuted, superseded: true, value: res.Value,
			expiresAt: res.ExpiresAt, tookOver: res.TookOver}
	case idem.Replayed:
		if err != nil {
			return retried(opOf(err), err)
		}
		return fate{verdict: acknowledge, work: workReplayed, value: res.Value, expiresAt: res.ExpiresAt, omitted: res.Omitted}
	case idem.InProgress:
		return fate{verdict: retry, op: idem.OpClaim, reason: idem.ErrInProgress, work: workInProgress, leaseUntil: res.LeaseUntil}
	}
	if err != nil {
		// NotStored, or the claim or the work failed: the message comes
		// back.
		return retried(opOf(err), err)
	}
	return retried(idem.OpClaim, fmt.Errorf("handler: idem.Do returned outcome %v without an error", res.Outcome))
}

// opOf is the stage of idem.Do an error comes from.
func opOf(err error) idem.Op {
	if ie, ok := errors.AsType[*idem.Error](err); ok {
		return ie.Op
	}
	return idem.OpClaim
}
