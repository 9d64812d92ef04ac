package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/idemq/idemq/idem"
)

// ErrTableShape means the table is not the store's: missing, or with a
// column missing or of another type, or without a unique key on id, or
// with a column the store does not fill that refuses NULL. Nothing was
// written. Create the table with CreateTable (or the DDL of Schema), and
// check one made by other means with Check.
var ErrTableShape = errors.New("pgstore: the table does not have the store's shape")

// shapeCodes are the SQLSTATEs of a statement refused because the table
// is not what the store's statements expect.
var shapeCodes = map[string]bool{
	"42P01": true, // undefined_table
	"42703": true, // undefined_column
	"42804": true, // datatype_mismatch
	"42883": true, // undefined_function: an operator on a column of another type
	"42P10": true, // invalid_column_reference: no unique index for ON CONFLICT (id)
	"23502": true, // not_null_violation: a column the store does not fill
	"23514": true, // check_violation
	"22P02": true, // invalid_text_representation: a column of another type
}

// fail wraps an error in an *idem.Error for op and key. A table of the
// wrong shape is ErrTableShape; a row too large for PostgreSQL, on
// complete, idem.ErrResultTooLarge. ErrTableShape, and a staged write's
// error that is not of the connection, are marked idem.Permanent: the same
// request gets them again. PostgreSQL's error stays reachable with
// errors.As (*pgconn.PgError).
func (s *Store) fail(op idem.Op, key idem.Key, err error) error {
	var ie *idem.Error
	if errors.As(err, &ie) {
		return err
	}
	var pg *pgconn.PgError
	var cause error
	switch {
	case errors.Is(err, idem.ErrLeaseLost), errors.Is(err, idem.ErrRecordChanged):
		cause = err
	case errors.As(err, &pg) && shapeCodes[pg.Code], typeMismatch(err):
		cause = idem.Permanent(fmt.Errorf("%w: table %s: %w (create it with pgstore.CreateTable, or check it with Store.Check)", ErrTableShape, s.name, err))
	case op == idem.OpComplete && errors.As(err, &pg) && pg.Code == "54000": // program_limit_exceeded
		cause = fmt.Errorf("%w: %w", idem.ErrResultTooLarge, err)
	case strings.HasPrefix(err.Error(), "pgstore: "):
		cause = err
	default:
		cause = fmt.Errorf("pgstore: %w", err)
	}
	if staged := (*stagedError)(nil); errors.As(err, &staged) && !transient(err, true) {
		cause = idem.Permanent(cause)
	}
	return &idem.Error{Op: op, Key: key, Err: cause}
}

// retry calls fn until it succeeds, fails for a reason other than the
// connection, or has been called completeAttempts times. With idempotent
// unset, fn is called again only when nothing reached the server
// (pgconn.SafeToRetry). The waits between attempts grow from 20 ms and
// end with ctx.
func (s *Store) retry(ctx context.Context, idempotent bool, fn func() error) error {
	wait := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt == completeAttempts || !transient(err, idempotent) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// transient reports an error of the connection, not of the statement: the
// same statement may succeed on another connection.
func transient(err error, idempotent bool) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if pgconn.SafeToRetry(err) {
		return true
	}
	if !idempotent {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case strings.HasPrefix(pg.Code, "08"), // connection_exception
			strings.HasPrefix(pg.Code, "40"),                           // transaction_rollback: serialization, deadlock
			pg.Code == "57P01", pg.Code == "57P02", pg.Code == "57P03": // shutdown, cannot connect now
			return true
		}
		return false
	}
	return isConnErr(err)
}

// isConnErr reports an error of the connection rather than of PostgreSQL:
// a dial, read or write that failed.
func isConnErr(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return false
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// typeMismatch reports pgx refusing to encode an argument for, or scan a
// value from, a column whose type is not the one the store's statement
// expects: a table of another shape.
func typeMismatch(err error) bool {
	var scan pgx.ScanArgError
	var scanp *pgx.ScanArgError
	return errors.As(err, &scan) || errors.As(err, &scanp) || strings.HasPrefix(err.Error(), "failed to encode args[")
}

// completeAttempts is how many times a completion (or a claim) is sent
// before a connection error is returned, 20, 40 and 80 ms apart: the
// store's retries are the completion's one retry layer, since idem.Do
// sends it once. None is sent past the context's deadline, which idem.Do
// sets to its settle deadline.
const completeAttempts = 4

// stagedError is a staged write's error.
type stagedError struct {
	i   int
	err error
}

func (e *stagedError) Error() string { return fmt.Sprintf("pgstore: staged write %d: %v", e.i, e.err) }

func (e *stagedError) Unwrap() error { return e.err }
