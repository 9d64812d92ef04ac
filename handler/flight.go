package handler

import (
	"sync"

	"github.com/idemq/idemq/idem"
)

// flights are the keys a batch of one wrapped handler is claiming and
// running right now. When the runtime runs invocations side by side
// (Lambda Managed Instances), a batch that meets a key another batch of
// the process is running waits for that batch's outcome and takes it, as
// a copy of a key within a batch takes its first record's: one claim, one
// execution, and the copy acknowledged as soon as the key completes,
// rather than found in progress and given back to the queue until the
// lease ends. Whoever waits leads nothing while waiting (a flight lands
// when the record that leads it has an outcome), so waits cannot form a
// cycle.
type flights struct {
	mu sync.Mutex
	m  map[idem.Key]*flight
}

// flight is one key being settled by one record.
type flight struct {
	fp   string        // the leading record's fingerprint
	done chan struct{} // closed when res is set
	res  result        // the leading record's result; zero: no outcome
}

// join returns the key's flight and false if one is under way, or starts
// one, led by the caller, and returns it and true.
func (fs *flights) join(key idem.Key, fp string) (*flight, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.m[key]; ok {
		return f, false
	}
	if fs.m == nil {
		fs.m = make(map[idem.Key]*flight)
	}
	f := &flight{fp: fp, done: make(chan struct{})}
	fs.m[key] = f
	return f, true
}

// land ends the flight with its leading record's result and wakes those
// waiting for it.
func (fs *flights) land(key idem.Key, f *flight, res result) {
	f.res = res
	fs.mu.Lock()
	if fs.m[key] == f {
		delete(fs.m, key)
	}
	fs.mu.Unlock()
	close(f.done)
}

// awaitFlight settles record s, whose key another batch of this process
// is running, from that batch's outcome: a completed key is replayed, a
// key that batch found in progress is in progress here too. It returns
// false when s must claim the key itself after all: the other record
// ended without settling the key (its work failed, its deadline came),
// which the store then decides. A record whose own deadline comes first
// is not started (ErrDeadline).
func (b *batch) awaitFlight(s *slot, f *flight) (result, bool) {
	b.o.logger.DebugContext(b.ctx, "idemq: key in flight in another batch of this process; waiting for its outcome",
		"message_id", s.msg.MessageId, "key", string(s.key))
	select {
	case <-f.done:
	case <-b.recCtx.Done():
		return failed("run", ErrDeadline), true
	}
	l := &f.res
	switch {
	case s.fp != "" && f.fp != "" && s.fp != f.fp:
		return failed("claim", idem.ErrPayloadMismatch), true
	case l.acked() && !l.keyless:
		if l.Omitted {
			return b.replayOmitted(l.Result), true
		}
		return b.replay(s, idem.Result{Outcome: idem.Replayed, Value: l.Value, ExpiresAt: l.ExpiresAt}, false), true
	case l.Outcome == idem.InProgress:
		return result{Result: idem.Result{Outcome: idem.InProgress, LeaseUntil: l.LeaseUntil}, op: l.op, err: l.err}, true
	}
	return result{}, false
}
