// Package streamctx tells the handler that the batch it is given is an
// ordered stream's (a Kinesis or DynamoDB Streams shard's, a Kafka batch's), adapted into
// SQS messages by the stream package: the handler then runs it as a FIFO
// batch with message group isolation, without SQS's visibility back-off,
// queue URL or batch error, and marks the batch seen, so that the stream
// package can refuse a handler that did not run it so.
package streamctx

import (
	"context"
	"sync/atomic"
)

// Batch is one stream batch's mark, carried in the context the handler
// is called with.
type Batch struct{ seen atomic.Bool }

type contextKey struct{}

// With returns ctx carrying a new Batch mark, and the mark.
func With(ctx context.Context) (context.Context, *Batch) {
	b := &Batch{}
	return context.WithValue(ctx, contextKey{}, b), b
}

// From returns the Batch mark ctx carries, or nil outside a stream batch.
func From(ctx context.Context) *Batch {
	b, _ := ctx.Value(contextKey{}).(*Batch)
	return b
}

// See marks the batch run as a stream's; a nil Batch does nothing.
func (b *Batch) See() {
	if b != nil {
		b.seen.Store(true)
	}
}

// Seen reports whether the handler ran the batch as a stream's.
func (b *Batch) Seen() bool { return b.seen.Load() }
