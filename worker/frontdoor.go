package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

// NewFrontDoor wires the HTTP front door (package frontdoor) from s,
// settings of front-door mode (IDEMQ_MODE=frontdoor) as idemqenv.Read
// returns them: it enqueues each POSTed request once per Idempotency-Key
// on IDEMQ_FRONTDOOR_QUEUE_URL through the producer, by the worker's
// request.Identity, and answers each key's status from the worker's
// records, in the store opened and checked as New opens it, reading
// offloaded results from the worker's bucket. On a FIFO queue each
// request is sent in a message group of its own.
//
// IDEMQ_FRONTDOOR_SCOPE=iam or iam-session needs the caller's scope given
// in code (WithFrontDoorOptions(frontdoor.WithScope(...))): only the code
// serving the front door can tell a request's caller; without it the
// front door is refused rather than share one key space among every
// caller. Serve the returned Worker's FrontDoor over HTTP
// (IDEMQ_FRONTDOOR_ADDR) or behind a Lambda function URL, as the
// reference worker does. Every bad setting is reported at once, as New
// does.
func NewFrontDoor(ctx context.Context, s idemqenv.Settings, opts ...Option) (*Worker, error) {
	return newFrontDoor(ctx, s, nil, opts)
}

// newFrontDoor is NewFrontDoor after readErr, what Read refused,
// reported with every other bad setting.
func newFrontDoor(ctx context.Context, s idemqenv.Settings, readErr error, opts []Option) (*Worker, error) {
	w, errs := begin(s, idemqenv.FrontDoor, opts)
	if s.Program == idemqenv.FrontDoor {
		fc, _ := optkit.ApplyOptions("frontdoor", w.frontDoorOptions(nil))
		if s.FrontDoor.Scope != idemqenv.ScopeNone && fc.Scope == nil {
			errs = append(errs, fmt.Errorf("IDEMQ_FRONTDOOR_SCOPE=%s: the front door cannot tell a request's caller by itself: give worker.WithFrontDoorOptions(frontdoor.WithScope(...)) the caller's scope, or set IDEMQ_FRONTDOOR_SCOPE=%s (one key space for every caller)", s.FrontDoor.Scope, idemqenv.ScopeNone))
		}
		errs = append(errs, named(fc.Validate()))
	}
	if err := w.open(ctx, readErr, errs); err != nil {
		return nil, err
	}
	if err := w.wireFrontDoor(ctx); err != nil {
		w.Close()
		return nil, w.failed(err)
	}
	return w, nil
}

func (w *Worker) wireFrontDoor(ctx context.Context) error {
	client, err := w.clients.SQS(ctx)
	if err != nil {
		return err
	}
	q, err := frontDoorQueue(client, w.Settings.FrontDoor.QueueURL, w.Settings.Request)
	if err != nil {
		return err
	}
	w.FrontDoor, err = frontdoor.New(w.Store, q, w.frontDoorOptions(w.Blobs)...)
	return err
}

// frontDoorQueue is the worker's queue as the front door sends to it: the
// producer, by the front door's Identity id, so a send whose answer was
// lost is sent again with the same key, and the key is where the worker
// reads it. On a FIFO queue (its URL ends in .fifo) each request's group
// is the SHA-256 of its scope and key, so requests are not held behind
// each other, and the producer sets the deduplication id from them, so
// SQS drops a re-send within its 5-minute window.
func frontDoorQueue(client producer.SQSAPI, queueURL string, id request.Identity) (frontdoor.Queue, error) {
	p, err := producer.New(client, queueURL, producer.WithRequest(id))
	if err != nil {
		return nil, err
	}
	if !strings.HasSuffix(queueURL, ".fifo") {
		return p, nil
	}
	return fifoGroups{p}, nil
}

// fifoGroups sends each request in a message group of its own.
type fifoGroups struct{ *producer.Producer }

// Send sends m with the SHA-256 of its scope and key as its group: any
// key, as 64 hex digits, within the group id's 128 characters. The key
// and the scope hold no control character (idem.CheckValue), so the unit
// separator between them joins them one way only.
func (q fifoGroups) Send(ctx context.Context, m producer.Message) (producer.Sent, error) {
	sum := sha256.Sum256([]byte(m.Scope + "\x1f" + m.Key))
	m.GroupID = hex.EncodeToString(sum[:])
	return q.Producer.Send(ctx, m)
}
