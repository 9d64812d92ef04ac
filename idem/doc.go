// Package idem runs a piece of work once per idempotency key, however many
// times the request that asks for it is delivered.
//
// The key is claimed before the work, with one conditional write evaluated
// by the store (never a read followed by a write). The claim marks the key
// IN_PROGRESS with a lease; the work runs; the result is stored and the key
// marked COMPLETED. Every later delivery finds the record:
//
//	record found                         Claim          Do outcome   what the caller does
//	none, or expired                     Claimed        Executed     ran the work; ack
//	IN_PROGRESS, lease passed (crash)    Claimed        Executed     took over; ack
//	IN_PROGRESS, lease live              the record     InProgress   leave the message for a retry
//	COMPLETED, not expired               the record     Replayed     stored result; ack
//	live, other payload fingerprint      the record     error        ErrPayloadMismatch
//
// When the work succeeds, the outcome says what became of its result, from
// the completion's own answer: Executed (stored, with the staged writes),
// Superseded (refused because another claim took the key over after this
// lease passed; Result.Holder says whether that claim has completed it) or
// NotStored (anything else, after the store's client retried what may be
// transient: the claim is released, and the caller must not ack). Only Executed, Replayed, and Superseded with the holder COMPLETED,
// settle a request.
//
// When the work fails or panics the claim is released (deleted) so a retry
// can claim again. Complete, Release and Extend are fenced by an owner token
// written by the claim: a worker whose lease was taken over gets
// ErrLeaseLost and cannot touch the new owner's record.
//
// A result longer than Config.CompressAbove (512 bytes) is stored
// gzip-compressed when that makes it smaller; the store keeps the encoding
// beside it (Record.Encoding), and a replay decompresses it, so Result.Value
// is always the result as the work returned it. A stored result that cannot
// be decoded fails the replay with ErrUnreadableResult, never replays as
// empty.
//
// A result too large to store, even compressed, does not free the key: the
// work has run, and running it again would not make its result smaller.
// The record is COMPLETED without it (Record.OmittedBytes), the first call
// gets the fresh result with ErrResultTooLarge, and later calls are
// Replayed with Result.Omitted and no value.
//
// Records must outlive every redelivery of their message: size
// Config.Expiry from the queue's settings (queue.RecordLifetime).
//
// Settings live in Config, declared, defaulted and checked in one place;
// Do takes them as Options, and the SQS handler passes them on unchanged.
// They take the one option shape of every idemq package
// (docs/options.md): the options set Config's fields (WithConfig sets it
// whole); a zero value is the default; NewConfig and Validate report every
// bad setting at once, each a *ConfigError.
//
// This package holds the model and imports no AWS package. Keys come from
// ClientKey and NaturalKey here, or from a JSON body's fields with
// idem/idemjson (which also makes payload fingerprints of JSON). Stores live
// in idem/dynamostore (DynamoDB), idem/pgstore (PostgreSQL),
// idem/redisstore (Redis) and idem/memstore (memory); idem/idemtest is the
// conformance suite every one of them passes. The SQS Lambda wrapper is
// package handler; the queue settings records are sized from are package
// queue.
//
// # Words
//
// The packages' comments use these words so (package handler adds those of
// a batch: copy, leader, adopt, fate):
//
//   - claim: the one conditional write that takes a key for one worker
//     (IN_PROGRESS, with a lease and an owner token), or finds the record
//     that holds it.
//   - lease: how long a claim is its worker's own; once it passes, another
//     claim may take the key over. The heartbeat extends it.
//   - owner: the token a claim writes; every later write of that claim is
//     fenced by it.
//   - settle: complete a claim (store the result, COMPLETED) or release it
//     (delete it, so a retry may claim again). A key is settled when its
//     record is COMPLETED.
//   - take over: claim a key whose lease has passed or whose record has
//     expired (Result.TookOver).
//   - superseded: the work ran, but its lease had passed and another claim
//     owns the key, so its completion was refused (Superseded).
//   - replay: hand a later call the stored result instead of running the
//     work (Replayed).
//
// # Writing a store
//
// A store implements Store: four methods, each one atomic step the store
// evaluates itself (a conditional write, a transaction, a script), never a
// read followed by a write. It has no clock: each request carries the time
// it is judged at. It passes the conformance suite:
//
//	func TestConformance(t *testing.T) {
//		idemtest.Run(t, func(t *testing.T) idem.Store { return mystore.New(...) })
//	}
//
// and the history check (package idem/idemtest/linearize): its histories
// under concurrent clients, lost answers, pauses and skewed clocks
// checked linearizable against the model of a record (put it in a
// test-only package, so that the store's users never need the checker):
//
//	func TestLinearizable(t *testing.T) {
//		linearize.Linearizable(t, mystore.New(...), linearize.Config{})
//	}
//
// Record.Claimable says whether a claim at a time may replace a record
// (expired, or IN_PROGRESS with its lease passed). A write fenced by an
// owner that finds another owner's record, or none, returns a
// *LeaseLostError (ErrLeaseLost). A store keeps an expiry as epoch
// seconds rounded up, so a record never expires early, and keeps
// Record.Fingerprint and Owner as it is given.
//
// A store also keeps Record.Encoding beside the result, returns
// ErrResultTooLarge for a result it cannot keep (leaving the record as it
// was), commits the writes staged with Stage (Completion.Writes) in the
// completion's atomic step or fails with ErrUnsupportedWrite. Errors
// specific to the store's database stay inside the store.
//
// A store that operators inspect also implements Admin (Get, a paged
// List, a Delete fenced by the record as read), which the idemq command
// (cmd/idemq) uses and Do never calls; ListRequest.Selects and
// Deletion.Matches are the tests its List and Delete make, and
// idemtest.Run checks them on every store that has them.
package idem
