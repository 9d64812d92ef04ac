package linearize

import (
	"bytes"
	"math/rand/v2"
	"sync"
)

// Fault is what a fault layer does with one request (Faults.Decide).
type Fault int

// The faults.
const (
	// FaultPass forwards the request and its answer.
	FaultPass Fault = iota
	// FaultRefuse drops the request before it reaches the server (a
	// connection cut before it, a refusal): the server never acts on it.
	FaultRefuse
	// FaultLoseAnswer forwards the request, then drops its answer (the
	// connection cut when it comes back): the server acted on it, the
	// client never learns how, and its retryer sends it again.
	FaultLoseAnswer
)

// Faults decides, for a fault layer between a store and its server (a
// TCP proxy, an HTTP transport), what becomes of each request, and tells
// the history check which operation each lost answer belonged to. The
// layer calls Decide with every request it forwards; only requests that
// name an operation of the check in flight (by its owner token, which
// every write carries) are faulted. The zero value faults nothing; set
// the shares before the run. It is safe for concurrent use.
type Faults struct {
	// LoseAnswers is the share of those requests whose answer is lost.
	// Defaults to 0.
	LoseAnswers float64
	// Refusals is the share of those requests refused. Defaults to 0.
	Refusals float64

	mu      sync.Mutex
	rng     *rand.Rand
	live    map[string]*liveOp // operations in flight, by owner token
	lost    int
	refused int
}

// Decide returns what becomes of request, the bytes of one request as
// the layer sees it (a query, a command, an HTTP body).
func (f *Faults) Decide(request []byte) Fault {
	if f == nil {
		return FaultPass
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rng == nil {
		return FaultPass
	}
	for owner, op := range f.live {
		if !bytes.Contains(request, []byte(owner)) {
			continue
		}
		switch x := f.rng.Float64(); {
		case x < f.LoseAnswers:
			op.lost++
			f.lost++
			return FaultLoseAnswer
		case x < f.LoseAnswers+f.Refusals:
			f.refused++
			return FaultRefuse
		}
		return FaultPass
	}
	return FaultPass
}

// start readies f for a run, with its own random source.
func (f *Faults) start(seed uint64) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rng = rand.New(rand.NewPCG(seed, seed^0x5eed))
	f.live = map[string]*liveOp{}
	f.lost, f.refused = 0, 0
}

// begin and end mark an operation in flight; its owner names it.
func (f *Faults) begin(op *liveOp) {
	if f == nil || op.in.Owner == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.live != nil {
		f.live[op.in.Owner] = op
	}
}

func (f *Faults) end(op *liveOp) {
	if f == nil || op.in.Owner == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.live, op.in.Owner)
}

// counts returns the answers lost and the requests refused so far.
func (f *Faults) counts() (lost, refused int) {
	if f == nil {
		return 0, 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lost, f.refused
}

// lostOf returns how many answers of op were lost.
func (f *Faults) lostOf(op *liveOp) int {
	if f == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return op.lost
}
