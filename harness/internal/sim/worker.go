package sim

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// worker is one Lambda instance: its handler (handler.New over the
// faulty store) and the scheduler's view of where it stands. A crash
// replaces it with a new instance.
type worker struct {
	w      *world
	id     int
	handle handler.Handler
	dead   atomic.Bool // read by the instance's own goroutines
	resume chan bool   // the scheduler's turn to the instance: go on, or die
	events chan event  // the instance's yields and its handler's return
	beat   atomic.Pointer[beat]

	// Written by the scheduler, or by the instance while the scheduler
	// waits for it.
	busy        bool
	at          point
	until       time.Time // at callRunning: when the provider answers
	batch       *batch
	resp        events.SQSEventResponse
	respErr     error
	ex          *exec     // the execution under way
	lease       time.Time // its lease while it is live: the clock does not pass it
	stalled     bool      // its call stalls past the lease: the clock may pass it
	frozenUntil time.Time // a stalled instance's heartbeat is frozen until then
	inFn        bool      // parked inside the provider func: its heartbeat may beat
	calling     bool      // inside the provider call
	beatAlive   bool      // its heartbeat runs and has not found the lease lost
}

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

// beat is the gate through which the scheduler steps one execution's
// heartbeat. idem's heartbeat runs in its own goroutine on a real ticker;
// before each extension it reads the clock (clock.Now().Add(lease)), and
// that read waits here until the scheduler grants a beat, so the extension
// reaches the store only while the scheduler waits for its answer. While
// the gate is open (from the Claim that answered Claimed to the return of
// the provider func) the heartbeat is the only reader of the instance's
// clock: idem.Do reads it before the claim and after the func. A
// heartbeat still ticking after the func returned gets the time without
// waiting, and Extend refuses it without touching the world.
type beat struct {
	grant    chan struct{}   // the scheduler lets one extension through
	answered chan beatAnswer // its answer, back to the scheduler
	stop     chan struct{}   // closed when the provider func returns
	granted  bool            // the heartbeat goroutine's own: it passed the gate
}

type beatAnswer struct {
	ctx context.Context // the heartbeat's: cancelled when it finds the lease lost
	err error
}

func newBeat() *beat {
	return &beat{grant: make(chan struct{}), answered: make(chan beatAnswer), stop: make(chan struct{})}
}

func (b *beat) open() bool {
	select {
	case <-b.stop:
		return false
	default:
		return true
	}
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
