package frontdoor

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storekit"
)

// status answers GET Path/{key}: from the front door's record for the
// key, which says the request was accepted and names the worker's record,
// then from the worker's record (its result, or in progress); 404 when
// the front door accepted no such request.
func (fd *frontDoor) status(w http.ResponseWriter, r *http.Request) {
	scope, ok := fd.callerScope(w, r)
	if !ok {
		return
	}
	key := r.PathValue("key")
	acceptKey, err := fd.acceptKey(scope, key)
	if !postableKey(key) || err != nil {
		// No POST can have been accepted with it (or by this caller):
		// answered without asking the store, which may refuse it.
		problem(w, http.StatusNotFound, "No such request", "no request with this Idempotency-Key was accepted")
		return
	}
	now := fd.c.Idem.Clock.Now()
	front, ok, err := fd.store.Get(r.Context(), acceptKey)
	if err != nil {
		fd.storeError(w, acceptKey, err)
		return
	}
	if !ok || !live(front, now) || (front.Status != idem.StatusCompleted && front.Status != idem.StatusInProgress) {
		problem(w, http.StatusNotFound, "No such request", "no request with this Idempotency-Key was accepted, or its record has expired")
		return
	}
	state, recordKey := StateQueued, idem.Key("")
	if front.Status == idem.StatusCompleted {
		value, err := fd.c.Idem.StoredResult(r.Context(), front)
		if err != nil {
			fd.storeError(w, acceptKey, err)
			return
		}
		ar, err := fd.decodeAccept(value, scope, key)
		if err != nil {
			fd.storeError(w, acceptKey, err)
			return
		}
		recordKey = ar.RecordKey
	} else {
		// Being enqueued, or its enqueuer died with the message sent: where
		// the worker's key is the caller's, its record may say more.
		state = StateAccepting
		if putsKey(fd.c.Request) {
			if id, err := fd.reader.ID(key, scope); err == nil {
				recordKey = id.Key
			}
		}
	}
	if recordKey != "" {
		rec, ok, err := fd.store.Get(r.Context(), recordKey)
		if err != nil {
			fd.storeError(w, recordKey, err)
			return
		}
		if ok && live(rec, now) {
			switch rec.Status {
			case idem.StatusCompleted:
				fd.result(w, r, recordKey, rec)
				return
			case idem.StatusInProgress:
				fd.state(w, key, StateInProgress)
				return
			}
		}
	}
	fd.state(w, key, state)
}

// postableKey reports whether key is one a POST can have been accepted
// with: 1 to MaxKeyBytes bytes of printable ASCII, as the Idempotency-Key
// header carries it (requestKey), which the key rule (idem.CheckValue)
// takes. Any other key in a status URL (%FF, %00, a long one) is unknown:
// 404, and no store is asked for it.
func postableKey(key string) bool {
	if key == "" || len(key) > MaxKeyBytes {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return idem.CheckValue(key) == nil
}

// result answers the worker's result: 200 with it, or 204 when it was
// too large to store. recordKey is the worker's record's key, for the
// log.
func (fd *frontDoor) result(w http.ResponseWriter, r *http.Request, recordKey idem.Key, rec idem.Record) {
	if rec.OmittedBytes > 0 {
		w.Header().Set(HeaderOmitted, strconv.Itoa(rec.OmittedBytes))
		w.WriteHeader(http.StatusNoContent)
		return
	}
	value, err := fd.c.Idem.StoredResult(r.Context(), rec)
	if err != nil {
		fd.storeError(w, recordKey, err)
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
	body, _ := json.Marshal(statusBody{Key: key, Status: state})
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
	return storekit.ExpirySeconds(rec.ExpiresAt) >= now.Unix()
}
