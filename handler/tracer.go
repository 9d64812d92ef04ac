package handler

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

// Tracer is the handler's tracing hook (Config.Tracer, WithTracer): the
// handler tells it when a batch, each of its records and each store call
// starts and ends, and runs what follows under the context it returns, so
// the spans of the function's own calls nest under their record's. The
// package imports no tracing library: module
// github.com/idemq/idemq/idemqotel implements Tracer with OpenTelemetry
// (idemqotel.WithTracing). A nil Tracer is off and costs a nil check.
//
// Each Start method returns the context to run under and a function that
// ends what it started; the handler calls that function exactly once,
// also when the record's function panics. A Tracer is shared by every
// batch of the handler, which may run at once, so its methods must be
// safe for concurrent use.
type Tracer interface {
	// StartBatch is called when a batch begins, with the invocation's
	// context. Every record of the batch runs under a context derived from
	// the one it returns.
	StartBatch(ctx context.Context, b BatchStart) (context.Context, func(BatchEnd))
	// StartRecord is called when the handler turns to a record, with the
	// batch's context: before its key is claimed, adopted or found
	// unusable. The store calls, the function and the replay hook of the
	// record run under the context it returns.
	StartRecord(ctx context.Context, r RecordStart) (context.Context, func(RecordEnd))
	// StartStoreCall is called before each call of the store (Claim,
	// Complete, Release, Extend, heartbeats included), with the context
	// the call is made under; the call is made under the context it
	// returns.
	StartStoreCall(ctx context.Context, c StoreCallStart) (context.Context, func(StoreCallEnd))
}

// BatchStart describes a batch to Tracer.StartBatch.
type BatchStart struct {
	// Records are the batch's messages, as Lambda delivered them; a
	// Tracer must not change them.
	Records []events.SQSMessage
	// QueueURL is the queue's URL: Config.QueueURL, else the one derived
	// from the first record's event source ARN; "" when neither is known.
	QueueURL string
	// FIFO is set for a FIFO queue's batch.
	FIFO bool
}

// BatchEnd is how a batch ended, for the function Tracer.StartBatch
// returned.
type BatchEnd struct {
	// Failures is the number of batch item failures in the response.
	Failures int
	// Err is the error the handler returns (a failed record without a
	// message id), or nil.
	Err error
}

// RecordStart describes a record to Tracer.StartRecord.
type RecordStart struct {
	// Message is the record's message; a Tracer must not change it.
	Message *events.SQSMessage
	// Index is the record's place in the batch, from 0.
	Index int
	// QueueURL is BatchStart.QueueURL.
	QueueURL string
	// Key is the record's idempotency key, namespace included; "" when it
	// has none or it could not be read. Keys can carry what a user sent:
	// a Tracer should not export them unless told to.
	Key idem.Key
}

// RecordEnd is how a record ended, for the function Tracer.StartRecord
// returned.
type RecordEnd struct {
	// Outcome is what became of the record, as the batch's counts class
	// it.
	Outcome RecordOutcome
	// TookOver is set when the record's claim took over a passed lease or
	// an expired record.
	TookOver bool
	// Err is why the record's message comes back (a sentinel of this
	// package, an *idem.Error, the function's error), or nil when the
	// record was acknowledged. A record of a FIFO batch acknowledged when
	// it ended, but reported as a failure because an earlier record
	// failed meanwhile, ends with a nil Err.
	Err error
}

// RecordOutcome is what became of a record, as a Tracer is told it; every
// record ends with exactly one:
//   - "executed": the key was claimed and the function ran (its result
//     stored, or the key completed by a claim that superseded it);
//   - "replayed": the key was completed before; its stored result was
//     replayed;
//   - "copy": a record of a key settled earlier in the batch, or in flight
//     in another batch of this process; it took its leader's result (the
//     Copies count);
//   - "cache_hit": replayed from the local cache (Config.CacheEntries),
//     with no store call;
//   - "in_progress": another worker holds the key; the message comes back;
//   - "failed": the key, the store, the function or a hook failed; the
//     message comes back;
//   - "skipped": not started (the deadline guard, or a FIFO failure before
//     it); the message comes back;
//   - "keyless": ran without a key (WithKeyless).
type RecordOutcome string

// The outcomes of a record (see RecordOutcome).
const (
	outcomeExecuted   RecordOutcome = "executed"
	outcomeReplayed   RecordOutcome = "replayed"
	outcomeCopy       RecordOutcome = "copy"
	outcomeCacheHit   RecordOutcome = "cache_hit"
	outcomeInProgress RecordOutcome = "in_progress"
	outcomeFailed     RecordOutcome = "failed"
	outcomeSkipped    RecordOutcome = "skipped"
	outcomeKeyless    RecordOutcome = "keyless"
)

// StoreCallStart describes a store call to Tracer.StartStoreCall.
type StoreCallStart struct {
	// Op is the call: idem.OpClaim, idem.OpComplete, idem.OpRelease or
	// idem.OpExtend.
	Op idem.Op
	// Key is the key the call is for (see RecordStart.Key).
	Key idem.Key
}

// StoreCallEnd is how a store call ended, for the function
// Tracer.StartStoreCall returned.
type StoreCallEnd struct {
	// Claim is, for a Claim that returned no error, what the store
	// answered: "claimed", or the status of the record that holds the key
	// (idem.Claim.String). "" for other calls.
	Claim string
	// Err is the call's error, or nil. A key held by another claim is a
	// Claim's answer, not an error.
	Err error
}
