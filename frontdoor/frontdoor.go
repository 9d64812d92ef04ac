package frontdoor

import (
	"context"
	"net/http"
	"strings"

	"github.com/idemq/idemq/idem"
)

// Store is what the front door needs of a store: idem.Store, to claim a
// key once for its enqueue, and a read of a record as stored, to answer a
// status request from the worker's record. Every idemq store has both
// (memstore, dynamostore, pgstore, redisstore). It must be the worker's
// store: the same table.
type Store interface {
	idem.Store
	// Get returns the record for key as stored, expired or not; ok is
	// false when there is none.
	Get(ctx context.Context, key idem.Key) (rec idem.Record, ok bool, err error)
}

// Enqueuer puts one request on the worker's queue. body is the JSON
// object the worker receives, the key at Config.KeyField; key is that key,
// for an enqueuer that uses it (as a FIFO queue's deduplication id, say).
// An error means the message may not have been sent: the front door
// releases the key and answers 503, and the client's retry enqueues it
// again, so an enqueue whose answer was lost makes a second message,
// which the worker's handler runs once.
type Enqueuer interface {
	Enqueue(ctx context.Context, key string, body []byte) error
}

// EnqueuerFunc adapts a function to an Enqueuer.
type EnqueuerFunc func(ctx context.Context, key string, body []byte) error

// Enqueue calls f.
func (f EnqueuerFunc) Enqueue(ctx context.Context, key string, body []byte) error {
	return f(ctx, key, body)
}

// New returns the front door: an http.Handler that takes POST
// Config.Path with an Idempotency-Key and a JSON object body, enqueues it
// once per key through q, and answers GET (and HEAD) Config.Path/{key}
// from the records of store (the package documentation has the table).
// Every answer is marked not to be cached or sniffed (Cache-Control:
// no-store, X-Content-Type-Options: nosniff), and every error is a
// problem, another path's 404 and another method's 405 included (route.go).
// It fails with an *idem.ConfigError for a nil store or q, a nil option,
// or a setting Config.Validate refuses.
func New(store Store, q Enqueuer, opts ...Option) (http.Handler, error) {
	if store == nil {
		return nil, configError("store", "", idem.ErrNil)
	}
	if q == nil {
		return nil, configError("enqueuer", "", idem.ErrNil)
	}
	c, err := idem.ApplyOptions("frontdoor", opts)
	if err != nil {
		return nil, err
	}
	c, err = c.resolve()
	if err != nil {
		return nil, err
	}
	return &frontDoor{c: c, store: store, q: q, base: strings.Split(c.Path, "/")}, nil
}

// frontDoor is what every request of one front door shares; read-only
// after New.
type frontDoor struct {
	c     Config
	store Store
	q     Enqueuer
	base  []string // Config.Path's segments, the first ""
}

// statusURL is where the status of key is read: Path/{key}, the key
// escaped as one path segment.
func (fd *frontDoor) statusURL(key string) string {
	return fd.c.Path + "/" + pathEscape(key)
}
