package idem

import "fmt"

// LeaseLostError is ErrLeaseLost with what a write fenced by Owner found
// in its place: the record's Status and its Holder, Status "" when there
// was no record. errors.Is(err, ErrLeaseLost) matches it; errors.As finds
// it, to tell a key another claim owns (Superseded) from a record that is
// gone.
type LeaseLostError struct {
	Status Status // the record's status; "" when there was none
	Holder string // the owner of the record found; "" when there was none
	Owner  string // the owner whose write was fenced off
}

// Superseded reports whether another claim owns the record: the key has
// an owner, and it is not the caller.
func (e *LeaseLostError) Superseded() bool { return e.Status != "" && e.Holder != e.Owner }

// Error says why the owner no longer holds the record.
func (e *LeaseLostError) Error() string {
	why := "the record is gone"
	switch {
	case e.Status == "":
	case e.Superseded():
		why = "another claim owns the record"
	case e.Status == StatusCompleted:
		why = "the record is already COMPLETED"
	default:
		why = fmt.Sprintf("the record's status is %q", e.Status)
	}
	return ErrLeaseLost.Error() + ": " + why
}

// Is makes errors.Is(err, ErrLeaseLost) true.
func (e *LeaseLostError) Is(target error) bool { return target == ErrLeaseLost }
