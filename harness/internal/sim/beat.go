package sim

import "context"

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
