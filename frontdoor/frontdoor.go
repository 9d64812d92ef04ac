package frontdoor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
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

// Queue is the worker's queue, as the front door sends to it: a
// *producer.Producer over that queue is one. Its Identity must be the
// front door's Config.Request (New refuses another), so that it puts the
// key where the front door does and the worker reads it.
type Queue interface {
	// Request returns the request.Identity the queue sends by
	// (producer.Config.Request).
	Request() request.Identity
	// Send puts m's key where Request reads it, checks the message as it
	// will be sent (its size included: producer.ErrTooLarge) and sends
	// it, as producer.Producer.Send does. An error means the message may
	// not have been sent: the front door releases the key and answers
	// 503 (413 for producer.ErrTooLarge, 500 for producer.ErrRejected),
	// and the client's retry sends it again, so a send whose answer was
	// lost makes a second message, which the worker's handler runs once.
	Send(ctx context.Context, m producer.Message) (producer.Sent, error)
}

// New returns the front door: an http.Handler that takes POST
// Config.Path with an Idempotency-Key and a JSON object body, enqueues it
// once per key through q, and answers GET (and HEAD) Config.Path/{key}
// from the records of store (the package documentation has the table).
// Every answer is marked not to be cached or sniffed (Cache-Control:
// no-store, X-Content-Type-Options: nosniff), and every error is a
// problem, another path's 404 and another method's 405 included (route.go).
// It fails with an error joining an *idem.ConfigError for every bad
// setting (joined): a nil store or q, a nil option, a
// setting Config.Validate refuses, a q whose Identity is not
// Config.Request.
func New(store Store, q Queue, opts ...Option) (http.Handler, error) {
	var errs []error
	if store == nil {
		errs = append(errs, configError("store", "", optkit.ErrNil))
	}
	if q == nil {
		errs = append(errs, configError("queue", "", optkit.ErrNil))
	}
	c, err := optkit.ApplyOptions("frontdoor", opts)
	errs = append(errs, err)
	c, err = c.resolve()
	errs = append(errs, err)
	if q != nil && err == nil {
		if err := c.Request.SameAs(q.Request()); err != nil {
			errs = append(errs, configError("Request", "", fmt.Errorf("is not the queue's (producer.Config.Request): pass one request.Identity to the worker's handler, the producer and the front door: %w", err)))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	reader, err := request.NewReader(c.Request)
	if err != nil { // not reached: resolve validated it
		return nil, err
	}
	return &frontDoor{c: c, store: store, q: q, reader: reader, base: strings.Split(c.Path, "/")}, nil
}

// frontDoor is what every request of one front door shares; read-only
// after New.
type frontDoor struct {
	c      Config
	store  Store
	q      Queue
	reader *request.Reader // Config.Request's: stamps and names every request
	base   []string        // Config.Path's segments, the first ""
}

// statusURL is where the status of key is read: Path/{key}, the key
// escaped as one path segment.
func (fd *frontDoor) statusURL(key string) string {
	return fd.c.Path + "/" + pathEscape(key)
}
