package loadtest

import "sync"

// Cause is why a message reached the function, as the event source mapping
// can tell from what it did before.
type Cause string

// The causes of a delivery.
const (
	// CauseFirst: the first delivery of a request.
	CauseFirst Cause = "first delivery"
	// CauseResend: the first delivery of a message carrying a key already
	// seen under another message id (a producer's re-send).
	CauseResend Cause = "producer re-send"
	// CauseDuplicate: a copy the broker delivered besides the message.
	CauseDuplicate Cause = "broker duplicate"
	// CauseVisibility: the message's visibility timeout ended while an
	// earlier delivery of it was still being processed: it came back
	// during the call, or after a delete that came too late to take.
	CauseVisibility Cause = "visibility timeout during the call"
	// CauseCrash: the message came back because the instance processing it
	// was killed before the ack.
	CauseCrash Cause = "crash before the ack"
	// CauseRetry: the message came back because the function reported it
	// as a batch item failure (in progress elsewhere, a store error, ...).
	CauseRetry Cause = "retry after an item failure"
	// CauseBatchFailure: the message came back because its whole batch
	// failed (an error, a timeout, a malformed response).
	CauseBatchFailure Cause = "retry after a failed batch"
)

// Causes lists the causes in the order reports print them.
var Causes = []Cause{CauseFirst, CauseResend, CauseDuplicate, CauseVisibility, CauseCrash, CauseRetry, CauseBatchFailure}

// Stats is what an event source mapping did.
type Stats struct {
	Invocations  int
	Deliveries   map[Cause]int // messages handed to the function, by cause
	Deleted      int           // messages acknowledged
	ItemFailures int           // messages a response listed as batch item failures
	// BatchFailures counts failed invocations by reason: "error",
	// "timeout", "malformed response", "crash".
	BatchFailures map[string]int
	// LastFailure is, per message id, why its last delivery was not
	// acknowledged; an acknowledged message has no entry. A dead-lettered
	// message's entry is the reason it was dead-lettered.
	LastFailure map[string]string
}

// TotalDeliveries returns the number of deliveries, all causes together.
func (s Stats) TotalDeliveries() int {
	n := 0
	for _, v := range s.Deliveries {
		n += v
	}
	return n
}

// tracker follows every message the ESM hands out.
type tracker struct {
	mu       sync.Mutex
	stats    Stats
	inFlight map[string]int   // message id → deliveries being processed
	latest   map[string]int   // message id → deliveries handed out (not counting copies)
	why      map[string]Cause // message id → why its next delivery comes
	keys     map[string]string
	crashed  map[string]bool // message ids whose crash was injected
	copied   map[string]bool // message ids whose duplicate was injected
}

func newTracker() *tracker {
	return &tracker{
		stats: Stats{
			Deliveries:    map[Cause]int{},
			BatchFailures: map[string]int{},
			LastFailure:   map[string]string{},
		},
		inFlight: map[string]int{},
		latest:   map[string]int{},
		why:      map[string]Cause{},
		keys:     map[string]string{},
		crashed:  map[string]bool{},
		copied:   map[string]bool{},
	}
}

// deliver classifies a delivery of message id (key may be "") and marks
// it in flight; it returns the delivery's number, for settle. A broker's
// copy is tracked apart from its original.
func (t *tracker) deliver(id, key string, copy bool) (Cause, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var c Cause
	why, seen := t.why[id]
	switch {
	case copy:
		c = CauseDuplicate
		id = copyID(id)
	case t.inFlight[id] > 0:
		c = CauseVisibility
	case seen:
		c = why
	case key != "" && t.keys[key] != "" && t.keys[key] != id:
		c = CauseResend
	default:
		c = CauseFirst
	}
	if key != "" && t.keys[key] == "" {
		t.keys[key] = id
	}
	t.inFlight[id]++
	seq := 0
	if !copy {
		t.why[id] = CauseVisibility // until this delivery ends
		t.latest[id]++
		seq = t.latest[id]
	}
	t.stats.Deliveries[c]++
	return c, seq
}

// settle records how delivery seq of id ended: acked, or the cause its
// next delivery will have and why. An ack of a delivery older than the
// latest one used a receipt handle the queue has replaced: the queue may
// ignore it (fauxqs does; SQS may), so the latest delivery decides what
// comes next.
func (t *tracker) settle(id string, seq int, copy, acked bool, next Cause, reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if copy {
		t.inFlight[copyID(id)]--
		if acked {
			t.stats.Deleted++
		}
		return
	}
	t.inFlight[id]--
	if acked {
		t.stats.Deleted++
		if seq < t.latest[id] {
			return // a stale receipt handle
		}
		delete(t.stats.LastFailure, id)
		// Only a broker's copy (counted as such) or a delete that did not
		// take can bring it back: a receipt handle whose visibility
		// timeout ended during the call may be refused (fauxqs ignores
		// it), and the message comes back as if received again then.
		t.why[id] = CauseVisibility
		return
	}
	if seq < t.latest[id] {
		return // a later delivery was handed out: it decides
	}
	t.why[id] = next
	t.stats.LastFailure[id] = reason
}

// once reports whether fault f has not been applied to id yet, and marks
// it applied.
func (t *tracker) once(set map[string]bool, id string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if set[id] {
		return false
	}
	set[id] = true
	return true
}

func (t *tracker) add(f func(s *Stats)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f(&t.stats)
}

func (t *tracker) busy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range t.inFlight {
		if n > 0 {
			return true
		}
	}
	return false
}

func (t *tracker) snapshot() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stats
	s.Deliveries = copyMap(s.Deliveries)
	s.BatchFailures = copyMap(s.BatchFailures)
	s.LastFailure = copyMap(s.LastFailure)
	return s
}

func copyMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func copyID(id string) string { return id + "\x00copy" }
