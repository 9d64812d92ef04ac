package pipeline

import (
	"maps"
	"math/rand/v2"
	"sync"
	"time"
)

// StoreFaults are the faults of the store as the workers reach it: every
// request slowed, some refused before they reach the store (throttled by
// DynamoDB; the connection cut on PostgreSQL and Redis), some applied and
// then answered with an error or their connection cut (the answer lost).
// The stores retry both kinds: DynamoDB's SDK, as it would in AWS;
// pgstore, and go-redis under redisstore, on a new connection.
type StoreFaults struct {
	Latency     time.Duration // added to every request
	Throttle    float64       // fraction refused without reaching the store
	LostAnswers float64       // fraction applied, then answered with an error or cut
	Seed        uint64
}

// faultPlan draws the store's faults for record requests and counts what
// it did, per operation and fault ("PutItem", "PutItem throttled",
// "query refused", "command lost", ...).
type faultPlan struct {
	faults  StoreFaults
	refused string // what a refusal is called: faultThrottled or faultRefused
	mu      sync.Mutex
	rng     *rand.Rand
	counts  map[string]int
}

func newFaultPlan(f StoreFaults, refused string) *faultPlan {
	return &faultPlan{faults: f, refused: refused, rng: rand.New(rand.NewPCG(f.Seed, 2)), counts: map[string]int{}}
}

// The faults a request may get, as counted.
const (
	faultThrottled = "throttled" // refused by DynamoDB's proxy with ThrottlingException
	faultRefused   = "refused"   // refused by the TCP proxy: the connection cut
	faultLost      = "lost"
)

// draw sleeps the latency, then picks the fault of one request op about
// record key ("" for a request about no record: table set-up, which
// passes) and counts it.
func (p *faultPlan) draw(op, key string) string {
	if p.faults.Latency > 0 {
		time.Sleep(p.faults.Latency)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	x := p.rng.Float64()
	fault := ""
	if key != "" {
		switch {
		case x < p.faults.Throttle:
			fault = p.refused
		case x < p.faults.Throttle+p.faults.LostAnswers:
			fault = faultLost
		}
	}
	p.counts[op]++
	if fault != "" {
		p.counts[op+" "+fault]++
	}
	return fault
}

// Counts returns the requests seen per operation and fault.
func (p *faultPlan) Counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.counts)
}
