package sim

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

func (w *world) newWorker(id int) *worker {
	wk := &worker{w: w, id: id, resume: make(chan bool), events: make(chan event)}
	opts := []handler.Option{
		handler.WithRequest(request.Identity{Namespace: namespace, KeyField: "id"}), handler.WithConcurrency(1),
		handler.WithLogger(slog.New(slog.DiscardHandler)), handler.WithReplayHook(wk.replayed),
		handler.WithIdem(func(c *idem.Config) { c.Clock = clock{wk} }, idem.WithLease(w.cfg.Lease)),
	}
	if w.beating {
		// The interval is real time: the ticker only wakes the heartbeat,
		// which then waits at the clock for the scheduler (see beat).
		opts = append(opts, handler.WithIdem(idem.WithHeartbeat(time.Microsecond)))
	}
	h, err := handler.New(&faultStore{w: w, wk: wk}, wk.work, opts...)
	if err != nil {
		panic(err) // the simulation's own settings: a refusal is its bug
	}
	wk.handle = h
	return wk
}

func (wk *worker) String() string {
	s := fmt.Sprintf("w%d busy=%v at=%s", wk.id, wk.busy, wk.at)
	if wk.ex != nil {
		s += fmt.Sprintf(" %s on %s lease=%s stalled=%v", wk.ex, wk.ex.key, wk.lease.Format(clockFormat), wk.stalled)
	}
	if wk.at == callRunning {
		s += " until=" + wk.until.Format(clockFormat)
	}
	return s
}

// replayed is the replay hook: it notes the result a message was handed.
// A dead instance's hook notes nothing.
func (wk *worker) replayed(_ context.Context, msg events.SQSMessage, result []byte) error {
	if !wk.dead.Load() {
		wk.batch.replays[msg.MessageId] = bytes.Clone(result)
	}
	return nil
}

// clock is the instance's idem.Clock: the simulated time.
type clock struct{ wk *worker }

func (c clock) Now() time.Time { return c.wk.now() }

// now is the instance's clock (idem.Config.Clock): the simulated time.
func (wk *worker) now() time.Time {
	if b := wk.beat.Load(); b != nil && b.open() {
		select {
		case <-b.grant:
			b.granted = true
		case <-b.stop:
			if wk.dead.Load() {
				runtime.Goexit()
			}
		}
	}
	return wk.w.now
}
