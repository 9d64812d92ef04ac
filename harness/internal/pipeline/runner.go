package pipeline

import (
	"io"
	"sync"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/producer"
)

type runner struct {
	parts    Parts
	cfg      Config
	progress io.Writer
	suffix   string

	reqs      []loadtest.Request
	keyOf     map[string]string // prompt → key
	groupOf   map[string]string // key → message group (FIFO)
	queue     *Queue
	provider  *loadtest.Provider
	blob      *blobRun  // the result bucket (Config.Blobs)
	store     storeRun  // the records' store, behind its fault proxy
	sqsProxy  *SQSProxy // the workers' SQS endpoint (back-off)
	instances []*Instance
	byName    map[string]*Instance
	naive     *naive
	con       *conRun // the Consumer variant's state (consumer.go)

	mu          sync.Mutex
	crashedKeys map[string]bool // keys whose call an instance died in (CrashDuringCall picked)
	lostWork    map[string]int  // per key, the batches holding it whose instance died during them
	notStored   map[string]int  // per key, the results computed but not stored (notStoredResults)
	abandoned   map[string]int  // per key, the provider's calls whose answer no worker took (Call.Answered false)
	errs        []string        // the first invocation errors

	// The FIFO producer's: first message id per key, re-sends with the
	// first deduplication id that the queue dropped (and did not).
	firstID                 map[string]string
	dedupDropped, dedupKept int
	// The producer (package producer), the proxy that loses its answers,
	// and the requests it made for the keys' messages.
	producer     *producer.Producer
	sendProxy    *SendProxy
	sendAttempts int

	cleanups []func()
}

// conRun is one consumer run's state.
type conRun struct {
	r     *runner
	proxy *SQSFaultProxy
	rep   ConsumerReport

	mu         sync.Mutex
	procs      map[string]*ConsumerProc // every process started, by name
	order      []*ConsumerProc
	held       map[string]map[string]string // process → message id → key: received, not deleted
	running    map[string][]map[string]bool // process → its last MaxBatches receive answers' message ids: the batches it runs
	seen       map[string]bool              // message ids delivered
	firstOf    map[string]string            // key → its first message id
	firstRH    map[string]string            // message id → its first receipt handle
	holder     map[string]string            // message id → the process that last received it
	deleted    map[string]bool
	sent       map[string]bool
	copied     map[string]bool
	killedBD   map[string]bool              // message ids whose delete killed their sender
	termed     map[string]bool              // keys whose call SIGTERM-ed its caller
	calls      map[string]map[string]string // key → call id → calling process: calls under way
	lost       map[string]bool              // message ids whose extension was lost
	termAt     map[string]time.Time
	killedAt   map[string]time.Time // key → when its caller was killed during its call (KilledDuringCall)
	recovered  map[string]bool      // keys of killedAt called again
	deliveries map[loadtest.Cause]int
	violations []string
	checkErr   error
	stopping   bool
}

// callTime is how long the provider takes for key.
func (r *runner) callTime(key string) time.Duration {
	if r.cfg.Faults.Picks(loadtest.ShortVisibility, key) {
		return r.cfg.SlowCall
	}
	return r.cfg.CallTime
}
