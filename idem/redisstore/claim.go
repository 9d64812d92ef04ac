package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// Claim implements idem.Store with one script (EVALSHA; EVAL the first
// time a server sees it) that writes the record if the key is absent or
// claimable and otherwise returns the record that holds the key, in one
// round trip. A claim go-redis sends again after a lost answer finds the
// record held by its own owner, which is Claimed.
func (s *Store) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	if req.Key == "" {
		return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Err: idem.ErrNoKey}
	}
	if req.Owner == "" {
		return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Key: req.Key, Err: errors.New("redisstore: empty owner")}
	}
	lease := ""
	if !req.LeaseUntil.IsZero() {
		lease = strconv.FormatInt(req.LeaseUntil.UnixMilli(), 10)
	}
	reply, err := claimScript.Run(ctx, s.client, []string{s.Key(req.Key)},
		req.Owner, req.Fingerprint, req.Now.Unix(), req.Now.UnixMilli(), storekit.ExpirySeconds(req.ExpiresAt), lease).Slice()
	if err != nil {
		return idem.Claim{}, s.fail(idem.OpClaim, req.Key, err)
	}
	if len(reply) != 2 {
		return idem.Claim{}, s.fail(idem.OpClaim, req.Key, fmt.Errorf("redisstore: the claim script returned %d values", len(reply)))
	}
	code, _ := reply[0].(int64)
	rec, err := decodeFields(req.Key, reply[1])
	switch {
	case code == 1:
		// The claim is ours whatever the old record holds: report what
		// could be read of it rather than fail a claim that succeeded.
		return idem.Claim{Claimed: true, Previous: rec}, nil
	case code == 2:
		return idem.Claim{Claimed: true}, nil
	case err != nil:
		return idem.Claim{}, s.fail(idem.OpClaim, req.Key, err)
	case rec == nil:
		return idem.Claim{}, s.fail(idem.OpClaim, req.Key, errors.New("redisstore: the claim failed but no record came back"))
	}
	return idem.Claim{Record: *rec}, nil
}
