package idem

import (
	"context"
	"math/rand/v2"
	"time"
)

// How Do sends a completion again (see Do): at most completeAttempts
// completions in all, after pauses of completePause, doubled after each
// up to completePauseMax, each drawn at random from its upper half.
const (
	completeAttempts = 4
	completePause    = 50 * time.Millisecond
	completePauseMax = 200 * time.Millisecond
)

// sleeper is a Clock that also waits: Do pauses with it between the
// attempts of a completion (see Config.Clock).
type sleeper interface {
	Sleep(ctx context.Context, d time.Duration) error
}

// complete sends comp until the store answers it with anything but an
// error that may be transient (Retryable), completeAttempts times at
// most, while settle lasts. A pause that would end past the settle
// deadline is not taken: what is left of it belongs to the release that
// follows a completion that failed. Sending comp again is safe: a store
// answers a completion it already applied for the same owner, with the
// same result, with success (Store.Complete).
func (a *attempt) complete(settle context.Context, comp Completion) error {
	pause := completePause
	for n := 1; ; n++ {
		err := a.s.Complete(settle, comp)
		if err == nil || n == completeAttempts || !Retryable(err) || settle.Err() != nil {
			return err
		}
		wait := pause/2 + rand.N(pause/2+1)
		if deadline, ok := settle.Deadline(); ok && time.Until(deadline) <= wait {
			return err
		}
		if !a.c.sleep(settle, wait) {
			return err
		}
		pause = min(2*pause, completePauseMax)
	}
}

// sleep waits d, or until ctx ends (false), with the Clock's Sleep if it
// has one, else with a timer.
func (c Config) sleep(ctx context.Context, d time.Duration) bool {
	if s, ok := c.Clock.(sleeper); ok {
		return s.Sleep(ctx, d) == nil && ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
