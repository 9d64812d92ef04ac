package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// namespace is the handler's key namespace.
const namespace = "sim"

const clockFormat = "15:04:05.000"

// world is everything one run simulates. Only one goroutine touches it at
// a time: the scheduler's, or a worker goroutine it has handed the turn to
// and is waiting for.
type world struct {
	cfg   Config
	rng   *rand.Rand
	now   time.Time
	store *memstore.Store
	// conflicts answers a request that meets another Region's write, as
	// dynamostore does.
	conflicts conflicts
	beating   bool          // the workers run with a heartbeat
	visible   time.Duration // the queue's visibility timeout

	keys    []string
	keyOf   map[idem.Key]string // the store's key → the sim's name for it
	msgs    []*message
	seq     int // message ids and receipts
	batches int
	workers []*worker

	execs       []*exec
	byOwner     map[string]*exec
	calls       map[string]int     // provider calls per key
	allowances  map[string][]*exec // executions that let their key reach the provider again
	completedBy map[string]*exec   // the execution whose completion a key's record holds
	dead        map[string]bool    // a message of the key was dead-lettered

	trace  []string // the last lines, for a failure's report
	digest uint64   // of every trace line: two runs of a seed must agree
	broken error    // an invariant a worker's step found broken
	stats  Stats
}

// worker is one Lambda instance: its handler (handler.New over the
// faulty store) and the scheduler's view of where it stands. A crash
// replaces it with a new instance.
type worker struct {
	w      *world
	id     int
	handle handler.Handler
	dead   atomic.Bool // read by the instance's own goroutines
	resume chan bool   // the scheduler's turn to the instance: go on, or die
	events chan event  // the instance's yields and its handler's return
	beat   atomic.Pointer[beat]

	// Written by the scheduler, or by the instance while the scheduler
	// waits for it.
	busy        bool
	at          point
	until       time.Time // at callRunning: when the provider answers
	batch       *batch
	resp        events.SQSEventResponse
	respErr     error
	ex          *exec     // the execution under way
	lease       time.Time // its lease while it is live: the clock does not pass it
	stalled     bool      // its call stalls past the lease: the clock may pass it
	frozenUntil time.Time // a stalled instance's heartbeat is frozen until then
	inFn        bool      // parked inside the provider func: its heartbeat may beat
	calling     bool      // inside the provider call
	beatAlive   bool      // its heartbeat runs and has not found the lease lost
}

// traceLines is how many of the last trace lines a failure shows.
const traceLines = 60

func (w *world) logf(format string, args ...any) {
	line := fmt.Sprintf("%5d %s ", w.stats.Steps, w.now.Format(clockFormat)) + fmt.Sprintf(format, args...)
	h := fnv.New64a()
	_, _ = h.Write([]byte(line))
	w.digest = w.digest*31 + h.Sum64()
	if len(w.trace) == 2*traceLines {
		w.trace = append(w.trace[:0], w.trace[traceLines:]...)
	}
	w.trace = append(w.trace, line)
}
