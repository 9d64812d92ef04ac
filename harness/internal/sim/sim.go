package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

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

func (w *world) fail(seed uint64, err error) error {
	tail := w.trace[max(0, len(w.trace)-traceLines):]
	var state []string
	for _, wk := range w.workers {
		state = append(state, wk.String())
	}
	return fmt.Errorf("seed %d: %w\nlast events:\n%s\nworkers:\n%s", seed, err, strings.Join(tail, "\n"), strings.Join(state, "\n"))
}
