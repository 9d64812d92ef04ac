package idem

import (
	"time"

	"github.com/idemq/idemq/internal/storekit"
)

// The clock rule (Config.ClockSkew, docs/protocol.md "Clocks"): every time
// a worker writes is its clock plus the duration plus the bound, and every
// time it judges a record at is its clock less the bound. Do makes its
// requests here, and so can a tool or a test that calls a Store itself.

// NewClaim is the claim of key by owner that a worker makes at now, by its
// own clock, with lease: judged at now - ClockSkew, its lease ending at
// now + lease + ClockSkew and its record expiring at now + max(Expiry,
// lease) + ClockSkew. The fingerprint is stored short (storekit.StoredFingerprint).
// Zero fields of c take their defaults.
func (c Config) NewClaim(key Key, owner, fingerprint string, now time.Time, lease time.Duration) ClaimRequest {
	c.Expiry = c.expiry()
	return ClaimRequest{
		Key:         key,
		Owner:       owner,
		Fingerprint: storekit.StoredFingerprint(fingerprint),
		Now:         c.JudgedAt(now),
		LeaseUntil:  now.Add(lease + c.skew()),
		ExpiresAt:   c.claimExpiry(now, lease),
	}
}

// NewExtension is the extension of owner's claim of key that a worker's
// heartbeat makes at now, by its own clock: the lease renewed to end at
// now + lease + ClockSkew, the record to expire as a claim at now would
// make it (NewClaim). Zero fields of c take their defaults.
func (c Config) NewExtension(key Key, owner string, now time.Time, lease time.Duration) Extension {
	c.Expiry = c.expiry()
	return Extension{Key: key, Owner: owner, LeaseUntil: now.Add(lease + c.skew()), ExpiresAt: c.claimExpiry(now, lease)}
}

// CompletionExpiry is when a record completed at now, by the worker's own
// clock, expires: now + Expiry + ClockSkew. Zero fields of c take their
// defaults.
func (c Config) CompletionExpiry(now time.Time) time.Time {
	return now.Add(c.expiry() + c.skew())
}

// JudgedAt is the time a claim made at now, by the worker's own clock, is
// judged at (ClaimRequest.Now): now - ClockSkew, a time every clock
// within the bound has passed.
func (c Config) JudgedAt(now time.Time) time.Time { return now.Add(-c.skew()) }

// TakeOverAt is when, by this worker's clock, a claim may take over a
// record whose lease ends at leaseUntil as stored: leaseUntil +
// ClockSkew (Result.LeaseUntil of InProgress).
func (c Config) TakeOverAt(leaseUntil time.Time) time.Time {
	if leaseUntil.IsZero() {
		return leaseUntil
	}
	return leaseUntil.Add(c.skew())
}

// expiry is Expiry, its default when zero.
func (c *Config) expiry() time.Duration {
	if c.Expiry <= 0 {
		return DefaultExpiry
	}
	return c.Expiry
}
