package frontdoor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/internal/storekit"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// errOtherKey is a queue whose send reports another record key than the
// front door's: the two read requests by different Identities.
var errOtherKey = errors.New("the queue sent the request under another key than the front door's")

// submit takes a POST: it checks the key and the body, puts the key where
// the worker reads it (request.Reader.Stamp, which also says the worker's
// record key), and sends the request once per key through idem.Do on the
// front door's own record, whose result is the 202 answer and the
// worker's record key.
func (fd *frontDoor) submit(w http.ResponseWriter, r *http.Request) {
	scope, ok := fd.callerScope(w, r)
	if !ok {
		return
	}
	if scope != "" {
		err := idem.CheckValue(scope)
		if err == nil {
			if err = queue.CheckText(scope); err != nil {
				err = fmt.Errorf("the queue cannot carry it: %w", err)
			}
		}
		if err != nil {
			problem(w, http.StatusBadRequest, "Caller's scope cannot key a request", "the scope this front door names the caller by is not one a key can hold: "+err.Error())
			return
		}
	}
	if !jsonContent(r.Header.Get("Content-Type")) {
		problem(w, http.StatusUnsupportedMediaType, "Body must be JSON", "send a JSON object with Content-Type application/json")
		return
	}
	key, ok, err := requestKey(r.Header)
	switch {
	case err != nil:
		problem(w, http.StatusBadRequest, "Idempotency-Key is malformed", err.Error())
		return
	case !ok && !fd.c.KeyOptional:
		problem(w, http.StatusBadRequest, "Idempotency-Key is missing", errNoKeyHeader.Error()+`: a unique value per request, reused for its retries, like Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"`)
		return
	case !ok:
		key = storekit.NewOwner()
		w.Header().Set(HeaderKey, strconv.Quote(key)) // base64url: a valid sf-string as quoted
	}
	body, err := readBody(w, r, fd.c.MaxBodyBytes)
	switch {
	case errors.Is(err, errTooLarge):
		problem(w, http.StatusRequestEntityTooLarge, "Body is too large", err.Error())
		return
	case err != nil:
		problem(w, http.StatusBadRequest, "Body could not be read", err.Error())
		return
	}
	// One JSON object, whose fingerprint is of its canonical form: white
	// space and member order do not make another request.
	fingerprint, err := idemjson.Fingerprint(body)
	if err == nil {
		_, err = idemjson.Parse(body)
	}
	if err != nil {
		problem(w, http.StatusBadRequest, "Body must be a JSON object", err.Error())
		return
	}
	// JSON takes U+FFFE and U+FFFF in a string; SQS does not.
	if err := queue.CheckText(string(body)); err != nil {
		problem(w, http.StatusBadRequest, "Body cannot be queued", "the queue cannot carry the body: "+err.Error()+"; write such a character as a JSON escape (\\uFFFF)")
		return
	}
	stamped, id, ok := fd.stamp(w, body, key, scope)
	if !ok {
		return
	}
	if fd.c.CheckBody != nil {
		if err := fd.c.CheckBody([]byte(stamped.Body)); err != nil {
			problem(w, http.StatusBadRequest, "Body is not a valid request", err.Error())
			return
		}
	}
	acceptKey, err := fd.acceptKey(scope, key)
	if err != nil { // not reached: the key and the scope obey the key rule
		problem(w, http.StatusBadRequest, "Idempotency-Key is malformed", err.Error())
		return
	}
	answer, _ := json.Marshal(acceptedBody{Key: key, Status: StateQueued, StatusURL: fd.statusURL(key)})
	stored := encodeAccept(id.Key, answer)
	var sendErr error
	res, err := fd.c.Idem.Do(r.Context(), fd.store, acceptKey, fingerprint, func(ctx context.Context) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, fd.c.EnqueueTimeout)
		defer cancel()
		sent, err := fd.q.Send(ctx, producer.Message{Key: id.Value, Body: body, Scope: scope})
		switch {
		case err != nil:
			sendErr = err
		case sent.RecordKey != id.Key:
			sendErr = fmt.Errorf("%w: %q, not %q", errOtherKey, sent.RecordKey, id.Key)
		default:
			return stored, nil
		}
		return nil, sendErr
	})
	switch {
	case errors.Is(err, idem.ErrPayloadMismatch):
		problem(w, http.StatusUnprocessableEntity, "Idempotency-Key is already used", "a request with another body was sent with this key: send a new key for a new request")
	case err == nil && res.Outcome == idem.Executed:
		fd.accepted(w, acceptKey, scope, key, res.Value)
	case err == nil && res.Outcome == idem.Replayed:
		fd.repeated(w, r, acceptKey, scope, key, res.Value)
	case err == nil && res.Outcome == idem.InProgress:
		retryAfter(w)
		problem(w, http.StatusConflict, "Request is in progress", "a request with this key is being accepted: retry after a second")
	case res.Outcome == idem.NotStored || res.Outcome == idem.Superseded:
		// The message was sent: the request is accepted. Its record was
		// not stored (or another claim's was), so a retry may enqueue it
		// again, which the worker runs once.
		fd.c.Logger.Warn("idemq frontdoor: enqueued, but the key's record was not stored", "key", acceptKey, "outcome", res.Outcome.String(), "err", err.Error())
		fd.accepted(w, acceptKey, scope, key, res.Value)
	case sendErr != nil:
		fd.sendError(w, acceptKey, sendErr)
	default:
		fd.storeError(w, acceptKey, err)
	}
}

// stamp puts the request's key where the worker reads it, as the queue
// will (request.Reader.Stamp): the Idempotency-Key in the body member or
// the attribute Config.Request names, or, with KeyFields or a KeyFunc,
// the key the body makes; the caller's scope in request.ScopeAttribute.
// It returns the message as the worker will receive it and the request's
// ID, whose Key is the worker's record, or answers 400 (500 for a
// KeyFunc's panic) and returns false.
func (fd *frontDoor) stamp(w http.ResponseWriter, body []byte, key, scope string) (events.SQSMessage, request.ID, bool) {
	value := ""
	if putsKey(fd.c.Request) {
		value = key
	}
	msg, id, err := fd.reader.Stamp(events.SQSMessage{Body: string(body)}, value, scope)
	switch {
	case err == nil:
		return msg, id, true
	case errors.Is(err, request.ErrKeyMismatch):
		problem(w, http.StatusBadRequest, "Body holds another key", err.Error()+": leave the key out of the body, or send the same as the Idempotency-Key")
	case errors.Is(err, idem.ErrNoKey):
		problem(w, http.StatusBadRequest, "Body makes no key", "the worker keys a request by "+fd.c.Request.Source()+": "+err.Error())
	case errors.Is(err, idem.ErrBadKey):
		problem(w, http.StatusBadRequest, "Body's key cannot be used", err.Error())
	case errors.Is(err, request.ErrBadBody):
		problem(w, http.StatusBadRequest, "Body must be a JSON object", err.Error())
	case errors.Is(err, request.ErrKeyFuncPanic):
		fd.c.Logger.Error("idemq frontdoor: the key func panicked", "err", err.Error())
		problem(w, http.StatusInternalServerError, "Request could not be keyed", "")
	default: // the KeyFunc's own refusal of the message
		problem(w, http.StatusBadRequest, "Body makes no key", "the worker's key func refused it")
	}
	return events.SQSMessage{}, request.ID{}, false
}

// accepted writes the 202 answer from value, the front door's record's
// stored result (acceptRecord). acceptKey is that record's key, for the
// log.
func (fd *frontDoor) accepted(w http.ResponseWriter, acceptKey idem.Key, scope, key string, value []byte) {
	ar, err := fd.decodeAccept(value, scope, key)
	if err != nil {
		fd.storeError(w, acceptKey, err)
		return
	}
	fd.writeAccepted(w, key, ar.Answer)
}

// writeAccepted writes the 202 answer to the request posted with key.
func (fd *frontDoor) writeAccepted(w http.ResponseWriter, key string, answer []byte) {
	w.Header().Set("Location", fd.statusURL(key))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(answer)
}

// repeated answers a repeat of an accepted request from value, the front
// door's record's stored result: once the worker has completed the
// request, as a status read does (200 with its result, 204 when it was
// too large to store), with the status URL in Location; before, the
// same 202 as the first answer. A worker's record that cannot be read
// leaves the 202, which is true: the request is accepted.
func (fd *frontDoor) repeated(w http.ResponseWriter, r *http.Request, acceptKey idem.Key, scope, key string, value []byte) {
	ar, err := fd.decodeAccept(value, scope, key)
	if err != nil {
		fd.storeError(w, acceptKey, err)
		return
	}
	rec, ok, err := fd.store.Get(r.Context(), ar.RecordKey)
	switch {
	case err != nil:
		fd.c.Logger.Warn("idemq frontdoor: a repeated request's worker's record could not be read; answered as accepted", "key", ar.RecordKey, "err", err.Error())
	case ok && live(rec, fd.c.Idem.Clock.Now()) && rec.Status == idem.StatusCompleted:
		w.Header().Set("Location", fd.statusURL(key))
		fd.result(w, r, ar.RecordKey, rec)
		return
	}
	fd.writeAccepted(w, key, ar.Answer)
}

// sendError answers a send that failed, its claim released: 413 for a
// message over the queue's size (the caller's to make smaller), 500 for a
// queue that refused it, or would not send it (producer.ErrBadMessage: a
// FIFO queue without a group id; the caller's text is checked before), or
// read it by another Identity (sending it again would not help), else
// 503, to retry.
func (fd *frontDoor) sendError(w http.ResponseWriter, acceptKey idem.Key, err error) {
	switch {
	case errors.Is(err, producer.ErrTooLarge):
		problem(w, http.StatusRequestEntityTooLarge, "Request is too large for the queue", err.Error())
	case errors.Is(err, producer.ErrRejected), errors.Is(err, producer.ErrBadMessage), errors.Is(err, errOtherKey), errors.Is(err, request.ErrKeyMismatch),
		errors.Is(err, idem.ErrNoKey), errors.Is(err, idem.ErrBadKey), errors.Is(err, request.ErrBadBody), errors.Is(err, request.ErrKeyFuncPanic):
		fd.c.Logger.Error("idemq frontdoor: the queue refused the request", "key", acceptKey, "err", err.Error())
		problem(w, http.StatusInternalServerError, "Request could not be queued", "the queue refused it")
	default:
		fd.c.Logger.Error("idemq frontdoor: enqueue failed", "key", acceptKey, "err", err.Error())
		retryAfter(w)
		problem(w, http.StatusServiceUnavailable, "Request could not be queued", "retry with the same Idempotency-Key")
	}
}
