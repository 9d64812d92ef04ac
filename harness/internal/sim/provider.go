package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

var errProvider = errors.New("provider: 500")

// work is the handler's func: one provider call for the message's key,
// yielding when the provider receives the request and while it answers,
// then maybe staging writes, then maybe failing. The call is counted from
// when it starts; a failed one is not (nothing billed to replay).
func (wk *worker) work(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
	w, ex := wk.w, wk.ex
	if ex.beat != nil {
		defer close(ex.beat.stop)
	}
	switch {
	case !ex.claimed:
		w.broken = fmt.Errorf("%s runs the work for %s without a claim the store applied", ex, ex.key)
	case msg.Body != fmt.Sprintf(`{"id":%q}`, ex.key):
		w.broken = fmt.Errorf("%s claimed %s but runs the work for message %s %s", ex, ex.key, msg.MessageId, msg.Body)
	}
	wk.inFn, wk.calling = true, true
	w.calls[ex.key]++
	w.stats.Calls++
	ex.called = true
	ex.value = fmt.Appendf(nil, "%s by %s", ex.key, ex)
	call := w.cfg.MaxCall
	if w.beating {
		call = w.cfg.MaxBeatCall
	}
	wk.until = w.now.Add(time.Duration(1+w.rng.IntN(int(call/time.Millisecond))) * time.Millisecond)
	switch {
	case w.rng.Float64() < w.cfg.StallRate:
		// The lease will not cover this call: a second call is allowed.
		wk.stalled = true
		w.stats.Stalls++
		w.allow(ex, "stalled past its lease")
		wk.frozenUntil = wk.lease.Add(time.Millisecond)
		wk.until = wk.until.Add(w.cfg.Lease)
	case !w.beating:
		// Without a heartbeat the call ends within the lease: that is the
		// promise's condition. With one, the clock waits for extensions.
		wk.until = minTime(wk.until, wk.lease.Add(-time.Millisecond))
	}
	w.logf("w%d %s calls the provider for %s (call %d)", wk.id, ex, ex.key, w.calls[ex.key])
	wk.yield(callStarted)
	wk.yield(callRunning)
	wk.inFn, wk.calling = false, false
	if w.rng.Float64() < w.cfg.StageRate {
		for range 1 + w.rng.IntN(2) {
			if err := idem.Stage(ctx, stagedWrite(ex, ex.staged)); err != nil {
				w.broken = fmt.Errorf("%s: %w", ex, err)
			}
			ex.staged++
		}
	}
	if w.rng.Float64() < w.cfg.FailRate {
		w.calls[ex.key]--
		w.stats.Calls--
		w.stats.Failures++
		ex.called = false
		w.logf("w%d %s: the provider failed", wk.id, ex)
		return nil, errProvider
	}
	return ex.value, nil
}

// stagedWrite is ex's i-th staged write: it counts, in the store's own
// data, how often it was committed with a completion (see exec.commits).
func stagedWrite(ex *exec, i int) memstore.Write {
	key := ex.writeKey(i)
	return func(tx *memstore.Tx) error {
		n, _ := tx.Get(key)
		tx.Put(key, append(n, 1))
		return nil
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
