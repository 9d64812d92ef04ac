package sim

import (
	"errors"
	"time"

	"github.com/idemq/idemq/idem"
)

// step takes one scheduling decision: an instance's next step (or its
// crash), a heartbeat's extension, a delivery, or the clock moving.
func (w *world) step() {
	var runnable, beating, idle []*worker
	for _, wk := range w.workers {
		switch {
		case !wk.busy:
			idle = append(idle, wk)
		case wk.at != callRunning || !w.now.Before(wk.until):
			runnable = append(runnable, wk)
		}
		if wk.canBeat(w.now) {
			beating = append(beating, wk)
		}
	}
	visible := w.visibleMsgs()
	// The choices: each runnable instance, then a heartbeat, a delivery
	// and the clock, each if possible.
	c := w.rng.IntN(len(runnable) + 1 + btoi(len(beating) > 0) + btoi(len(idle) > 0 && len(visible) > 0))
	if c < len(runnable) {
		if wk := runnable[c]; w.rng.Float64() < w.cfg.CrashRate {
			w.crash(wk)
		} else {
			w.advance(wk)
		}
		return
	}
	c -= len(runnable)
	if len(beating) > 0 {
		if c == 0 {
			w.beat(beating[w.rng.IntN(len(beating))])
			return
		}
		c--
	}
	if len(idle) > 0 && len(visible) > 0 {
		if c == 0 {
			w.deliver(idle[w.rng.IntN(len(idle))], visible)
			return
		}
	}
	w.tick()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// tick moves the clock, never past a live instance's lease: the lease
// covers the work of an instance that is alive and not stalled.
func (w *world) tick() {
	dt := time.Duration(1+w.rng.IntN(int(w.cfg.MaxTick/time.Millisecond))) * time.Millisecond
	for _, wk := range w.workers {
		if wk.busy && !wk.stalled && !wk.lease.IsZero() {
			dt = min(dt, max(wk.lease.Sub(w.now)-time.Millisecond, 0))
		}
	}
	w.now = w.now.Add(dt)
}

// advance lets wk take its next step: run to its next yield, or have its
// answer acted on.
func (w *world) advance(wk *worker) {
	if wk.at == returned {
		w.respond(wk)
		return
	}
	wk.resume <- true
	w.await(wk)
}

// crash kills wk where it stands: nothing more it does reaches the store
// or the queue, and its answer is discarded. The scheduler waits for its
// handler to return before going on, and a new instance takes its place.
func (w *world) crash(wk *worker) {
	w.stats.Crashes++
	if ex := wk.ex; ex != nil && ex.called && !ex.completed {
		w.allow(ex, "crashed before its result was stored")
	}
	w.logf("w%d crashes at %s", wk.id, wk.at)
	w.kill(wk)
	w.workers[wk.id] = w.newWorker(wk.id)
}

// kill ends wk's goroutines: the one parked at a yield exits, and so does
// its heartbeat's (the provider func's exit closes the gate).
func (w *world) kill(wk *worker) {
	wk.dead.Store(true)
	if wk.busy && wk.at != returned {
		wk.resume <- false
		for ev := <-wk.events; ev.at != returned; ev = <-wk.events {
			panic("sim: a dead instance yielded at " + ev.at.String())
		}
	}
}

// stop ends every instance still running, after the last step.
func (w *world) stop() {
	for _, wk := range w.workers {
		w.kill(wk)
	}
}

// canBeat reports whether wk's heartbeat may extend its lease now: the
// provider func runs, and a stalled instance's heartbeat is frozen until
// its lease has passed.
func (wk *worker) canBeat(now time.Time) bool {
	return wk.busy && wk.inFn && wk.beatAlive && !now.Before(wk.frozenUntil)
}

// beat lets wk's heartbeat make one extension, and waits for it to settle:
// an extension that finds the lease lost cancels the work's context.
func (w *world) beat(wk *worker) {
	b := wk.ex.beat
	b.grant <- struct{}{}
	a := <-b.answered
	w.stats.Beats++
	if errors.Is(a.err, idem.ErrLeaseLost) {
		<-a.ctx.Done()
		wk.beatAlive = false
		w.stats.BeatsLost++
		w.logf("w%d %s: the heartbeat found the lease lost and cancelled the work", wk.id, wk.ex)
	}
}
