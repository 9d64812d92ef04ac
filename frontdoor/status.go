package frontdoor

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/idemq/idemq/idem"
)

// The states a status read answers with 202, in StatusBody.Status.
const (
	// StateAccepting: the front door is enqueuing the request now.
	StateAccepting = "accepting"
	// StateQueued: the request is on the queue; no worker has claimed it.
	StateQueued = "queued"
	// StateInProgress: a worker holds the key and runs the request.
	StateInProgress = "in_progress"
)

// HeaderOmitted is set on a 204 status answer: the worker completed the
// request, but its result (of this many bytes) was too large to store.
const HeaderOmitted = "Idemq-Result-Omitted"

// StatusBody is the body of a 202 status answer.
type StatusBody struct {
	// Key is the request's Idempotency-Key.
	Key string `json:"idempotency_key"`
	// Status is StateAccepting, StateQueued or StateInProgress.
	Status string `json:"status"`
}

// status answers GET Path/{key}: from the worker's record when there is
// one (its result, or in progress), else from the front door's own (the
// request is accepted and waits on the queue), else 404.
func (fd *frontDoor) status(w http.ResponseWriter, r *http.Request) {
	scope, ok := fd.callerScope(w, r)
	if !ok {
		return
	}
	key := r.PathValue("key")
	if key == "" || len(key) > MaxKeyBytes {
		problem(w, http.StatusNotFound, "No such request", "")
		return
	}
	now := fd.c.Idem.Clock.Now()
	stored := storedKey(scope, key)
	workerKey, _ := idem.ClientKey(fd.c.Namespace, stored) // cannot fail: both are set
	rec, ok, err := fd.store.Get(r.Context(), workerKey)
	if err != nil {
		fd.storeError(w, stored, err)
		return
	}
	if ok && live(rec, now) {
		switch rec.Status {
		case idem.StatusCompleted:
			fd.result(w, r, stored, rec)
			return
		case idem.StatusInProgress:
			fd.state(w, key, StateInProgress)
			return
		}
	}
	frontKey, _ := idem.ClientKey(fd.c.AcceptNamespace, stored)
	if rec, ok, err = fd.store.Get(r.Context(), frontKey); err != nil {
		fd.storeError(w, stored, err)
		return
	}
	if ok && live(rec, now) {
		switch rec.Status {
		case idem.StatusCompleted:
			fd.state(w, key, StateQueued)
			return
		case idem.StatusInProgress:
			fd.state(w, key, StateAccepting)
			return
		}
	}
	problem(w, http.StatusNotFound, "No such request", "no request with this Idempotency-Key was accepted, or its record has expired")
}

// result answers the worker's result: 200 with it, or 204 when it was
// too large to store. stored is the key it is kept under (storedKey), for
// the log.
func (fd *frontDoor) result(w http.ResponseWriter, r *http.Request, stored string, rec idem.Record) {
	if rec.OmittedBytes > 0 {
		w.Header().Set(HeaderOmitted, strconv.Itoa(rec.OmittedBytes))
		w.WriteHeader(http.StatusNoContent)
		return
	}
	value, err := fd.c.Idem.StoredResult(r.Context(), rec)
	if err != nil {
		fd.storeError(w, stored, err)
		return
	}
	contentType := "application/octet-stream"
	if json.Valid(value) {
		contentType = "application/json"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(value)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(value)
}

// state answers 202 with a request's state.
func (fd *frontDoor) state(w http.ResponseWriter, key, state string) {
	body, _ := json.Marshal(StatusBody{Key: key, Status: state})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	retryAfter(w)
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(body)
}

// live reports whether rec has not expired at now, compared as stores
// keep expiry, in whole seconds. A store's Get returns expired records
// too; they count as absent.
func live(rec idem.Record, now time.Time) bool {
	return idem.ExpirySeconds(rec.ExpiresAt) >= now.Unix()
}
