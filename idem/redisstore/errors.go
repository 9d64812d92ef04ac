package redisstore

import (
	"errors"
	"fmt"
	"strings"

	"github.com/idemq/idemq/idem"
)

// ErrKeySpace means a key the store uses holds something it did not
// write: a value of another type (a string, a list…), or a hash without
// the record's fields. Nothing was written. Give the store a prefix of its
// own (WithPrefix).
var ErrKeySpace = errors.New("redisstore: the key holds something the store did not write")

// fail wraps an error in an *idem.Error for op and key. A key of another
// type (Redis's WRONGTYPE) is ErrKeySpace, marked idem.Permanent: the same
// request gets it again. Redis's error stays reachable with errors.As.
func (s *Store) fail(op idem.Op, key idem.Key, err error) error {
	var cause error
	switch {
	case errors.Is(err, ErrKeySpace):
		cause = idem.Permanent(err)
	case strings.HasPrefix(err.Error(), "redisstore: "):
		cause = err
	case strings.Contains(err.Error(), "WRONGTYPE"):
		cause = idem.Permanent(fmt.Errorf("%w: %s: %w", ErrKeySpace, s.Key(key), err))
	default:
		cause = fmt.Errorf("redisstore: %w", err)
	}
	return &idem.Error{Op: op, Key: key, Err: cause}
}
