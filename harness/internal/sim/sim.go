package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"time"

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

// traceLines is how many of the last trace lines a failure shows.
const traceLines = 60

// Run simulates one seed and returns an error describing the first broken
// invariant, with the events that led to it.
func Run(seed uint64, cfg Config) (Stats, error) {
	w := newWorld(seed, cfg)
	err := w.run()
	w.stop()
	if err != nil {
		err = w.fail(seed, err)
	}
	return w.stats, err
}

func newWorld(seed uint64, cfg Config) *world {
	store, err := memstore.New()
	if err != nil {
		panic(err) // no options: memstore.New cannot fail
	}
	w := &world{
		cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), store: store, conflicts: newConflicts(),
		keyOf: map[idem.Key]string{}, byOwner: map[string]*exec{}, calls: map[string]int{},
		allowances: map[string][]*exec{}, completedBy: map[string]*exec{}, dead: map[string]bool{},
	}
	w.beating = w.rng.Float64() < cfg.BeatRate
	w.visible = cfg.Visibilities[w.rng.IntN(len(cfg.Visibilities))]
	for k := range cfg.Keys {
		key := fmt.Sprintf("k%d", k)
		ik, err := idem.ClientKey(namespace, key)
		if err != nil {
			panic(err)
		}
		w.keys, w.keyOf[ik] = append(w.keys, key), key
		w.send(key)
		for w.rng.Float64() < cfg.DupRate {
			w.send(key)
		}
	}
	for i := range cfg.Workers {
		w.workers = append(w.workers, w.newWorker(i))
	}
	return w
}

func (w *world) run() error {
	w.logf("heartbeat %v, visibility timeout %s", w.beating, w.visible)
	for w.stats.Steps = 0; w.stats.Steps < w.cfg.MaxSteps; w.stats.Steps++ {
		if w.quiet() {
			return w.final()
		}
		w.step()
		if err := w.check(); err != nil {
			return err
		}
	}
	return fmt.Errorf("no quiescence after %d steps", w.cfg.MaxSteps)
}

// quiet reports that every message is gone and every worker idle.
func (w *world) quiet() bool {
	for _, wk := range w.workers {
		if wk.busy {
			return false
		}
	}
	for _, m := range w.msgs {
		if !m.deleted {
			return false
		}
	}
	return true
}

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

func (w *world) fail(seed uint64, err error) error {
	tail := w.trace[max(0, len(w.trace)-traceLines):]
	var state []string
	for _, wk := range w.workers {
		state = append(state, wk.String())
	}
	return fmt.Errorf("seed %d: %w\nlast events:\n%s\nworkers:\n%s", seed, err, strings.Join(tail, "\n"), strings.Join(state, "\n"))
}
