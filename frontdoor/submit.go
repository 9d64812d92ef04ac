package frontdoor

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/idemq/idemq/idem"
)

// Accepted is the body of the 202 answer to a POST, kept in the front
// door's record for the key and replayed to every repeat of the request.
type Accepted struct {
	// Key is the request's Idempotency-Key.
	Key string `json:"idempotency_key"`
	// Status is "queued": the request is on the worker's queue.
	Status string `json:"status"`
	// StatusURL is where its status and result are read (also the
	// answer's Location).
	StatusURL string `json:"status_url"`
}

// submit takes a POST: it checks the key and the body, and enqueues the
// request once per key through idem.Do on the front door's own record,
// whose result is the 202 answer.
func (fd *frontDoor) submit(w http.ResponseWriter, r *http.Request) {
	scope, ok := fd.callerScope(w, r)
	if !ok {
		return
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
		key = idem.NewOwner()
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
	stored := storedKey(scope, key)
	msg, fingerprint, err := message(body, fd.c.KeyField, key, stored)
	if err != nil {
		problem(w, http.StatusBadRequest, "Body must be a JSON object", err.Error())
		return
	}
	if fd.c.CheckBody != nil {
		if err := fd.c.CheckBody(msg); err != nil {
			problem(w, http.StatusBadRequest, "Body is not a valid request", err.Error())
			return
		}
	}
	frontKey, err := idem.ClientKey(fd.c.AcceptNamespace, stored)
	if err != nil { // not reached: the namespace and the key are not empty
		problem(w, http.StatusBadRequest, "Idempotency-Key is malformed", err.Error())
		return
	}
	answer, _ := json.Marshal(Accepted{Key: key, Status: "queued", StatusURL: fd.statusURL(key)})
	var enqueueErr error
	res, err := fd.c.Idem.Do(r.Context(), fd.store, frontKey, fingerprint, func(ctx context.Context) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, fd.c.EnqueueTimeout)
		defer cancel()
		if enqueueErr = fd.q.Enqueue(ctx, stored, msg); enqueueErr != nil {
			return nil, enqueueErr
		}
		return answer, nil
	})
	switch {
	case errors.Is(err, idem.ErrPayloadMismatch):
		problem(w, http.StatusUnprocessableEntity, "Idempotency-Key is already used", "a request with another body was sent with this key: send a new key for a new request")
	case err == nil && (res.Outcome == idem.Executed || res.Outcome == idem.Replayed):
		fd.accepted(w, key, res.Value)
	case err == nil && res.Outcome == idem.InProgress:
		retryAfter(w)
		problem(w, http.StatusConflict, "Request is in progress", "a request with this key is being accepted: retry after a second")
	case res.Outcome == idem.NotStored || res.Outcome == idem.Superseded:
		// The message was sent: the request is accepted. Its record was
		// not stored (or another claim's was), so a retry may enqueue it
		// again, which the worker runs once.
		fd.c.Logger.Warn("idemq frontdoor: enqueued, but the key's record was not stored", "key", stored, "outcome", res.Outcome.String(), "err", err.Error())
		fd.accepted(w, key, res.Value)
	case enqueueErr != nil:
		fd.c.Logger.Error("idemq frontdoor: enqueue failed", "key", stored, "err", err.Error())
		retryAfter(w)
		problem(w, http.StatusServiceUnavailable, "Request could not be queued", "retry with the same Idempotency-Key")
	default:
		fd.storeError(w, stored, err)
	}
}

// accepted writes the 202 answer, answer being an Accepted.
func (fd *frontDoor) accepted(w http.ResponseWriter, key string, answer []byte) {
	w.Header().Set("Location", fd.statusURL(key))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(answer)
}

// storeError answers a failure of the store (or of a read of what it
// holds): 500 for a record that cannot be read, else 503, to retry. key is
// the key the request is kept under (storedKey), for the log.
func (fd *frontDoor) storeError(w http.ResponseWriter, key string, err error) {
	if err == nil { // not reached: every outcome without an error is answered above
		err = errors.New("no outcome")
	}
	fd.c.Logger.Error("idemq frontdoor: store error", "key", key, "err", err.Error())
	if errors.Is(err, idem.ErrUnreadableResult) {
		problem(w, http.StatusInternalServerError, "Stored answer cannot be read", "the record for this key cannot be read back")
		return
	}
	retryAfter(w)
	problem(w, http.StatusServiceUnavailable, "Store unavailable", "retry with the same Idempotency-Key")
}
