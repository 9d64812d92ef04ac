package idem

import (
	"errors"
	"fmt"
	"time"
)

// ErrInProgress means another worker holds the key with a live lease:
// the work was not done here, and a retry after the lease may replay its
// result or run it. Do reports it as the InProgress outcome with a nil
// error; a wrapper that keeps its function's signature (request.NewFunc)
// returns it, in an *InProgressError, where a caller matches an error;
// the SQS handler fails a record found so with it.
var ErrInProgress = errors.New("idem: key in progress on another worker")

// InProgressError says which key another worker holds, and until when:
// errors.Is(err, ErrInProgress) holds, and errors.As gives the lease's
// end, for an answer such as HTTP's Retry-After.
type InProgressError struct {
	Key Key
	// LeaseUntil is when this worker may take the key over: the holder's
	// lease end plus the clock-skew bound, Result.LeaseUntil. Zero when
	// the store did not say.
	LeaseUntil time.Time
}

// Error names the key and the lease's end.
func (e *InProgressError) Error() string {
	s := fmt.Sprintf("idem: key %q in progress on another worker", string(e.Key))
	if !e.LeaseUntil.IsZero() {
		s += " until " + e.LeaseUntil.UTC().Format(time.RFC3339Nano)
	}
	return s
}

// Unwrap returns ErrInProgress.
func (e *InProgressError) Unwrap() error { return ErrInProgress }
