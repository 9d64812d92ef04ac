package frontdoor

// The bodies and headers of the front door's answers that are its own
// (a result is the worker's, as it stored it).

// The states a status read answers with 202, in the body's "status".
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

// statusBody is the body of a 202 status answer.
type statusBody struct {
	// Key is the request's Idempotency-Key.
	Key string `json:"idempotency_key"`
	// Status is StateAccepting, StateQueued or StateInProgress.
	Status string `json:"status"`
}

// acceptedBody is the body of the 202 answer to a POST, kept in the front
// door's record for the key and replayed to every repeat of the request.
type acceptedBody struct {
	// Key is the request's Idempotency-Key.
	Key string `json:"idempotency_key"`
	// Status is "queued": the request is on the worker's queue.
	Status string `json:"status"`
	// StatusURL is where its status and result are read (also the
	// answer's Location).
	StatusURL string `json:"status_url"`
}
