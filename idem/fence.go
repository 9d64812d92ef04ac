package idem

import "fmt"

// LeaseLost is ErrLeaseLost saying why owner no longer holds a record,
// from what a write fenced by owner found in its place: the record's
// status and owner, status "" when there was none. Stores use it so that
// every store words it alike.
func LeaseLost(status Status, holder, owner string) error {
	why := "the record is gone"
	switch {
	case status == "":
	case holder != owner:
		why = "another claim owns the record"
	case status == StatusCompleted:
		why = "the record is already COMPLETED"
	default:
		why = fmt.Sprintf("the record's status is %q", status)
	}
	return fmt.Errorf("%w: %s", ErrLeaseLost, why)
}
