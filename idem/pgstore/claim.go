package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// claimRaces is how many times a claim is sent again when it lost a race
// to a concurrent claim whose record was already claimable when it came
// back (see claimSQL). Each retry reads a newer snapshot.
const claimRaces = 3

// Claim implements idem.Store with one statement (see the package doc): it
// inserts the record, or takes over a claimable one and returns it as
// Claim.Previous, or returns the record that holds the key, in one round
// trip. A claim whose connection fails is sent again: if the first attempt
// was applied, the retry finds the record held by its own owner, which is
// Claimed.
func (s *Store) Claim(ctx context.Context, req idem.ClaimRequest) (idem.Claim, error) {
	if req.Key == "" {
		return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Err: idem.ErrNoKey}
	}
	if req.Owner == "" {
		return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Key: req.Key, Err: errors.New("pgstore: empty owner")}
	}
	for range claimRaces {
		var c idem.Claim
		var raced bool
		err := s.retry(ctx, true, func() error {
			var err error
			c, raced, err = s.claimOnce(ctx, req)
			return err
		})
		if err != nil {
			return idem.Claim{}, s.fail(idem.OpClaim, req.Key, err)
		}
		if !raced {
			return c, nil
		}
	}
	return idem.Claim{}, &idem.Error{Op: idem.OpClaim, Key: req.Key, Err: fmt.Errorf(
		"pgstore: %d claims in a row met a concurrent claim whose record was already claimable (are the workers' clocks far apart?)", claimRaces)}
}

// claimOnce sends the claim statement. raced reports a holder that was
// written after the statement's snapshot and is claimable: the claim must
// be sent again to take it over.
func (s *Store) claimOnce(ctx context.Context, req idem.ClaimRequest) (c idem.Claim, raced bool, err error) {
	var lease *int64
	if !req.LeaseUntil.IsZero() {
		lease = nullable(req.LeaseUntil.UnixMilli())
	}
	rows, err := s.db.Query(ctx, s.sql.claim,
		string(req.Key), storekit.ExpirySeconds(req.ExpiresAt), lease, nullable(req.Fingerprint), req.Owner,
		req.Now.Unix(), req.Now.UnixMilli())
	if err != nil {
		return idem.Claim{}, false, err
	}
	var up, old *idem.Record
	for rows.Next() {
		var tag string
		var r row
		if err := rows.Scan(append([]any{&tag}, r.scanTargets()...)...); err != nil {
			rows.Close()
			return idem.Claim{}, false, err
		}
		rec := r.record()
		if tag == "up" {
			up = &rec
		} else {
			old = &rec
		}
	}
	if err := rows.Err(); err != nil {
		return idem.Claim{}, false, err
	}
	return decide(req, up, old)
}

// decide reads the claim statement's rows: up, the row as the statement
// wrote it, and old, the row as it was before.
func decide(req idem.ClaimRequest, up, old *idem.Record) (c idem.Claim, raced bool, err error) {
	mine := func(r *idem.Record) bool {
		return r != nil && r.Status == idem.StatusInProgress && r.Owner == req.Owner
	}
	var holder *idem.Record
	switch {
	case mine(old):
		// A retry of this claim whose answer was lost.
		return idem.Claim{Claimed: true}, false, nil
	case mine(up):
		// Inserted, or taken over from old.
		return idem.Claim{Claimed: true, Previous: old}, false, nil
	case up != nil:
		// A claim that raced this one holds the key; the row came back
		// unchanged.
		holder = up
		if holder.Claimable(req.Now) {
			return idem.Claim{}, true, nil
		}
	case old != nil:
		holder = old
	default:
		return idem.Claim{}, false, errors.New("pgstore: the claim statement returned no row")
	}
	switch holder.Status {
	case idem.StatusCompleted, idem.StatusInProgress:
		return idem.Claim{Record: *holder}, false, nil
	}
	return idem.Claim{}, false, fmt.Errorf("pgstore: the record has an unknown status %q", holder.Status)
}
