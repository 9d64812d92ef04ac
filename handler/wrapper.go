package handler

import (
	"sync"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
)

// wrapper holds what every batch of one wrapped handler shares. Batches
// run at once when the runtime runs invocations side by side (Lambda
// Managed Instances, AWS_LAMBDA_MAX_CONCURRENCY above 1), so what they
// share is read-only after New, safe for concurrent use, or guarded
// here.
type wrapper struct {
	store idem.Store
	// fn is a record's work, run with its message; nil for a typed
	// handler, whose records' work decode readies.
	fn Func
	// decode, for a typed handler (NewTyped), readies a record's work
	// from its message when the batch reads its key, before any claim: an
	// error (ErrBadBody, ErrPanic) fails the record without a claim.
	decode func(msg events.SQSMessage) (idem.Func, error)
	// step, when set, settles each record instead of a claim of store
	// and fn (NewStepHandler); store and fn are then nil.
	step     StepFunc
	settings settings
	cache    *cache // nil: off; locks itself
	// flights are the keys batches are settling now, so that a batch
	// running at the same time takes their outcome; they lock themselves.
	flights flights

	emfMu sync.Mutex // one EMF line at a time: the writer need not be safe for concurrent use
}
