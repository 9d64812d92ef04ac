package redisstore

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Complete implements idem.Store with one script that marks the record
// COMPLETED with its result and its encoding (the data_encoding field,
// absent for a result stored as it is), and moves the key's Redis expiry
// to the record's, if the owner still holds it INPROGRESS
// (idem.ErrLeaseLost if not). A record the owner already completed with
// the same result in the same encoding is a success: a retry.
//
// Staged writes are not supported (idem.ErrUnsupportedWrite): a Lua
// script could commit writes to other keys with the record, but only to
// keys in the record's hash slot, and only writes expressed as Redis
// commands, which a caller's code cannot run inside the script.
//
// A result larger than the store's limit (WithMaxResultBytes) fails with
// idem.ErrResultTooLarge before anything is sent; the claim is left as it
// was.
func (s *Store) Complete(ctx context.Context, c idem.Completion) error {
	if c.Key == "" {
		return &idem.Error{Op: idem.OpComplete, Err: idem.ErrNoKey}
	}
	if len(c.Writes) > 0 {
		return &idem.Error{Op: idem.OpComplete, Key: c.Key, Err: fmt.Errorf(
			"%w: redisstore commits no staged writes (got %T)", idem.ErrUnsupportedWrite, c.Writes[0])}
	}
	omitted := ""
	data, encoding := c.Result, c.Encoding
	if c.OmittedBytes > 0 {
		omitted, data, encoding = fmt.Sprint(c.OmittedBytes), nil, storekit.EncodingRaw
	} else if len(data) > s.maxResult {
		return &idem.Error{Op: idem.OpComplete, Key: c.Key, Err: fmt.Errorf(
			"%w: %d bytes, the store's limit is %d", idem.ErrResultTooLarge, len(data), s.maxResult)}
	}
	if data == nil {
		data = []byte{}
	}
	return s.fenced(ctx, idem.OpComplete, completeScript, c.Key, c.Owner, data, omitted, storekit.ExpirySeconds(c.ExpiresAt), encoding)
}

// Release implements idem.Store with one script that deletes the record if
// the owner still holds it INPROGRESS (idem.ErrLeaseLost if not).
func (s *Store) Release(ctx context.Context, key idem.Key, owner string) error {
	if key == "" {
		return &idem.Error{Op: idem.OpRelease, Err: idem.ErrNoKey}
	}
	return s.fenced(ctx, idem.OpRelease, releaseScript, key, owner)
}

// Extend implements idem.Store with one script that moves the lease and
// the expiry if the owner still holds the record INPROGRESS
// (idem.ErrLeaseLost if not). A zero LeaseUntil removes the lease: the
// claim is then held until the record expires; a zero ExpiresAt leaves the
// expiry as it is.
func (s *Store) Extend(ctx context.Context, e idem.Extension) error {
	if e.Key == "" {
		return &idem.Error{Op: idem.OpExtend, Err: idem.ErrNoKey}
	}
	lease, expiry := "", ""
	if !e.LeaseUntil.IsZero() {
		lease = fmt.Sprint(e.LeaseUntil.UnixMilli())
	}
	if !e.ExpiresAt.IsZero() {
		expiry = fmt.Sprint(storekit.ExpirySeconds(e.ExpiresAt))
	}
	return s.fenced(ctx, idem.OpExtend, extendScript, e.Key, e.Owner, lease, expiry)
}

// fenced runs a script made with owned and maps its answer.
func (s *Store) fenced(ctx context.Context, op idem.Op, script *redis.Script, key idem.Key, owner string, args ...any) error {
	reply, err := script.Run(ctx, s.client, []string{s.Key(key)}, append([]any{owner}, args...)...).Slice()
	if err != nil {
		return s.fail(op, key, err)
	}
	if code, _ := reply[0].(int64); code == 1 {
		return nil
	}
	var status, holder string
	if len(reply) == 3 {
		status, _ = reply[1].(string)
		holder, _ = reply[2].(string)
	}
	return &idem.Error{Op: op, Key: key, Err: &idem.LeaseLostError{Status: idem.Status(status), Holder: holder, Owner: owner}}
}
