package sim

import (
	"runtime"
	"time"
)

// yield hands the turn back to the scheduler and waits for it. A dead
// instance's goroutines end here: runtime.Goexit runs their deferred calls
// (recover returns nil in them), so nothing more reaches the world.
func (wk *worker) yield(p point) {
	if wk.dead.Load() {
		runtime.Goexit()
	}
	wk.events <- event{at: p}
	if !<-wk.resume {
		runtime.Goexit()
	}
}

// await waits for wk's next event.
func (w *world) await(wk *worker) {
	ev := <-wk.events
	wk.at = ev.at
	if ev.at == returned {
		wk.resp, wk.respErr = ev.resp, ev.err
		w.endExec(wk)
	}
}

// endExec ends wk's execution under way, if any: its lease no longer holds
// the clock back.
func (w *world) endExec(wk *worker) {
	wk.ex, wk.lease, wk.stalled, wk.frozenUntil = nil, time.Time{}, false, time.Time{}
	wk.inFn, wk.calling, wk.beatAlive = false, false, false
}
