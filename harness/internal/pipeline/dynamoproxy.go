package pipeline

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"strings"
	"sync"
	"time"
)

// StoreFaults are the faults of the store as the workers reach it: every
// request slowed, some refused before they reach DynamoDB (throttled),
// some applied and then answered with an error (the answer lost). The
// workers' SDK retries both kinds, as it would in AWS.
type StoreFaults struct {
	Latency     time.Duration // added to every request
	Throttle    float64       // fraction answered ThrottlingException without reaching DynamoDB
	LostAnswers float64       // fraction applied, then answered InternalServerError
	Seed        uint64
}

// StoreProxy is an HTTP proxy in front of DynamoDB Local that injects
// StoreFaults, and counts what it did per operation.
type StoreProxy struct {
	proxy  // URL, Close
	faults StoreFaults

	mu     sync.Mutex
	rng    *rand.Rand
	counts map[string]int // "PutItem", "PutItem throttled", "UpdateItem lost", ...
	// lostWrites records, per key, the operations whose answer was lost or
	// refused: a complete that failed loses a paid-for result.
	faulted map[string][]string
}

// NewStoreProxy starts a proxy to target (DynamoDB Local's URL) on a free
// port of 127.0.0.1.
func NewStoreProxy(target string, f StoreFaults) (*StoreProxy, error) {
	p := &StoreProxy{faults: f, rng: rand.New(rand.NewPCG(f.Seed, 2)), counts: map[string]int{}, faulted: map[string][]string{}}
	var err error
	if p.proxy, err = startProxy(target, p.serve); err != nil {
		return nil, err
	}
	return p, nil
}

// Counts returns the requests seen per operation and fault.
func (p *StoreProxy) Counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.counts))
	for k, v := range p.counts {
		out[k] = v
	}
	return out
}

// Faulted returns, per record key, the faulted operations on it.
func (p *StoreProxy) Faulted() map[string][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string][]string, len(p.faulted))
	for k, v := range p.faulted {
		out[k] = append([]string(nil), v...)
	}
	return out
}

func (p *StoreProxy) serve(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	key := recordKey(body)
	if p.faults.Latency > 0 {
		time.Sleep(p.faults.Latency)
	}
	p.mu.Lock()
	x := p.rng.Float64()
	fault := ""
	if key != "" { // only record requests; table set-up passes
		switch {
		case x < p.faults.Throttle:
			fault = "throttled"
		case x < p.faults.Throttle+p.faults.LostAnswers:
			fault = "lost"
		}
	}
	p.counts[op]++
	if fault != "" {
		p.counts[op+" "+fault]++
		p.faulted[key] = append(p.faulted[key], op+" "+fault)
	}
	p.mu.Unlock()

	switch fault {
	case "throttled":
		writeAWSError(w, http.StatusBadRequest, "com.amazonaws.dynamodb.v20120810#ThrottlingException", "Rate of requests exceeds the allowed throughput.")
	case "lost":
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r)                                                                                                              // applied ...
		writeAWSError(w, http.StatusInternalServerError, "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error") // ... answer lost
	default:
		rp.ServeHTTP(w, r)
	}
}

func writeAWSError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
}

// recordKey finds the record key ("id" attribute) a request is about:
// Item.id or Key.id, or in the first item of a transaction.
func recordKey(body []byte) string {
	type attr struct {
		S string `json:"S"`
	}
	type one struct {
		Item map[string]attr `json:"Item"`
		Key  map[string]attr `json:"Key"`
	}
	var req struct {
		one
		TransactItems []map[string]one `json:"TransactItems"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	items := []one{req.one}
	for _, t := range req.TransactItems {
		for _, o := range t {
			items = append(items, o)
		}
	}
	for _, o := range items {
		if a, ok := o.Item["id"]; ok {
			return a.S
		}
		if a, ok := o.Key["id"]; ok {
			return a.S
		}
	}
	return ""
}
