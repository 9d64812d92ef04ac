package linearize

import (
	"fmt"
	"time"
)

// Report is what a history check did and found.
type Report struct {
	Store      string // the store's type
	Seed       uint64 // Config.Seed, or the random one taken
	Clients    int    // clients at once
	Keys       int    // keys used in all
	Operations int    // operations recorded (first sends of lost answers not counted)
	ByKind     map[string]int
	ClockSkew  time.Duration // the bound the requests were made with
	// ClockOffset is how far the clients' clocks were from the true
	// time, at most.
	ClockOffset time.Duration
	// NoAnswer is the operations that ended with no answer: a timeout,
	// an error, a restart.
	NoAnswer int
	// Resent is the operations whose first answer was lost and which the
	// store's client sent again; LostAnswers, the answers lost in all.
	Resent, LostAnswers int
	// Refused is the requests a fault layer refused before they reached
	// the server.
	Refused int
	// Timeouts is the operations sent with a deadline of milliseconds.
	Timeouts int
	// Pauses is the clients paused past their lease; PausedRefused, the
	// writes they sent afterwards that were refused (another client had
	// taken the key over).
	Pauses, PausedRefused int
	// TakeOvers is the claims answered as taking over another owner's
	// IN_PROGRESS claim; Reclaimed, those taking over a COMPLETED record
	// that had expired.
	TakeOvers, Reclaimed int
	// Restarts is how many times the server was restarted.
	Restarts int
	// Ran is how long the clients ran; Checked, how long the check took.
	Ran, Checked time.Duration
	// Verdict is "linearizable", "not linearizable", or "not checked"
	// (the check timed out); Picture, the path of a failing history's
	// picture.
	Verdict string
	Picture string
}

// String is the report on one line.
func (r Report) String() string {
	return fmt.Sprintf("%s: %s; %d operations (%v) on %d keys from %d clients (clocks within ±%s, bound %s), seed %d; "+
		"no answer %d, answers lost %d (%d operations sent again), refused %d, timeouts %d, pauses %d (%d late writes refused), "+
		"take-overs %d, expired records reclaimed %d, restarts %d; ran %s, checked in %s",
		r.Store, r.Verdict, r.Operations, r.ByKind, r.Keys, r.Clients, r.ClockOffset, r.ClockSkew, r.Seed,
		r.NoAnswer, r.LostAnswers, r.Resent, r.Refused, r.Timeouts, r.Pauses, r.PausedRefused,
		r.TakeOvers, r.Reclaimed, r.Restarts, r.Ran.Round(time.Millisecond), r.Checked.Round(time.Millisecond))
}
