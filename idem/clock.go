package idem

import "time"

// Clock tells the time. Every decision about leases and expiry reads the
// clock of the call that makes it, so tests can move time by hand.
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to a Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// systemClock is the wall clock.
var systemClock Clock = ClockFunc(time.Now)
