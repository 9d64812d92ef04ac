package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// Config is one simulated world.
type Config struct {
	Keys        int
	Workers     int
	Lease       time.Duration
	Visibility  time.Duration // shorter than the longest call: cause 1
	MaxCall     time.Duration
	MaxReceives int
	CrashRate   float64 // per worker step
	FailRate    float64 // per provider call: the call fails, the claim is released
	StallRate   float64 // per claim: the worker stalls past its lease (a zombie)
	DupRate     float64 // broker duplicates and producer re-sends, per key
	MaxSteps    int
}

// DefaultConfig is the world the tests explore.
func DefaultConfig() Config {
	return Config{
		Keys: 4, Workers: 3, Lease: time.Minute, Visibility: 10 * time.Second,
		MaxCall: 20 * time.Second, MaxReceives: 200, CrashRate: 0.03, FailRate: 0.1, StallRate: 0.05, DupRate: 0.5, MaxSteps: 20000,
	}
}

// Stats counts what one run did.
type Stats struct {
	Steps, Deliveries, Calls, Failures, Crashes, Stalls, FencedOff, Replays, InProgress, TakeOvers, DeadLetters int
}

// step kinds a worker yields at.
type point int

const (
	beforeStore point = iota // about to send a request to the store
	callStarted              // the provider received the request
	callRunning              // waiting for the provider's answer
	beforeAck                // Do returned; about to delete the message
	finished                 // the goroutine is done
)

var errProvider = errors.New("provider: 500")

type message struct {
	id, key   string
	visibleAt time.Time
	receives  int
	receipt   int
	deleted   bool
}

type worker struct {
	id      int
	busy    bool
	dead    bool // crashed: its goroutine is gone
	resume  chan bool
	yielded chan point
	at      point
	until   time.Time // callRunning: the answer arrives then
	msg     *message
	receipt int
	ack     bool
	// the claim this worker holds, for the clock bound and the invariants
	holding  string
	lease    time.Time
	owner    string
	inCall   string // the key whose provider call is running
	unstored string // the key called but not yet stored (crash here = allowed duplicate)
	stalled  bool   // the clock may pass its lease: another worker may take over
}

type world struct {
	cfg     Config
	rng     *rand.Rand
	now     time.Time
	store   *memstore.Store
	msgs    []*message
	seq     int
	workers []*worker
	calls   map[string]int
	allowed map[string]int    // crashes between call and store, per key
	results map[string][]byte // the result each owner's call returned
	stored  map[string]string // key → owner whose complete succeeded
	dead    map[string]bool
	trace   []string
	broken  error // an invariant a store call saw broken
	stats   Stats
}

// Run simulates one seed and returns an error describing the first broken
// invariant, with the trace that led to it.
func Run(seed uint64, cfg Config) (Stats, error) {
	w := &world{
		cfg: cfg, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), store: memstore.New(),
		calls: map[string]int{}, allowed: map[string]int{}, results: map[string][]byte{},
		stored: map[string]string{}, dead: map[string]bool{},
	}
	for i := range cfg.Workers {
		w.workers = append(w.workers, &worker{id: i})
	}
	for k := range cfg.Keys {
		key := fmt.Sprintf("k%d", k)
		w.send(key)
		// Broker duplicates and producer re-sends: more messages, same key.
		for w.rng.Float64() < cfg.DupRate {
			w.send(key)
		}
	}
	defer w.killAll()
	for w.stats.Steps = 0; w.stats.Steps < cfg.MaxSteps; w.stats.Steps++ {
		if w.quiet() {
			return w.stats, w.final()
		}
		w.step()
		if err := w.check(); err != nil {
			return w.stats, w.fail(seed, err)
		}
	}
	return w.stats, w.fail(seed, fmt.Errorf("no quiescence after %d steps", cfg.MaxSteps))
}

func (w *world) logf(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf("%5d %s ", w.stats.Steps, w.now.Format("15:04:05.000"))+fmt.Sprintf(format, args...))
}

func (w *world) fail(seed uint64, err error) error {
	tail := w.trace[max(0, len(w.trace)-40):]
	var state []string
	for _, wk := range w.workers {
		state = append(state, fmt.Sprintf("w%d busy=%v at=%d until=%s holding=%q lease=%s", wk.id, wk.busy, wk.at, wk.until.Format("15:04:05.000"), wk.holding, wk.lease.Format("15:04:05.000")))
	}
	return fmt.Errorf("seed %d: %w\nlast events:\n%s\nworkers:\n%s", seed, err, strings.Join(tail, "\n"), strings.Join(state, "\n"))
}

func (w *world) send(key string) {
	w.seq++
	w.msgs = append(w.msgs, &message{id: fmt.Sprintf("m%d", w.seq), key: key, visibleAt: w.now})
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

// step takes one scheduling decision.
func (w *world) step() {
	var runnable, idle []*worker
	for _, wk := range w.workers {
		switch {
		case !wk.busy:
			idle = append(idle, wk)
		case wk.at != callRunning || !w.now.Before(wk.until):
			runnable = append(runnable, wk)
		}
	}
	visible := w.visible()
	choices := len(runnable)
	if len(idle) > 0 && len(visible) > 0 {
		choices++ // a delivery
	}
	choices++ // the clock moves
	c := w.rng.IntN(choices)
	switch {
	case c < len(runnable):
		wk := runnable[c]
		if w.rng.Float64() < w.cfg.CrashRate {
			w.crash(wk)
		} else {
			w.advance(wk)
		}
	case c == len(runnable) && len(idle) > 0 && len(visible) > 0:
		w.deliver(idle[w.rng.IntN(len(idle))], visible[w.rng.IntN(len(visible))])
	default:
		w.tick()
	}
}

func (w *world) visible() []*message {
	var out []*message
	for _, m := range w.msgs {
		if !m.deleted && !w.now.Before(m.visibleAt) {
			out = append(out, m)
		}
	}
	return out
}

// tick moves the clock, never past a live holder's lease: the lease covers
// the work of a worker that is alive.
func (w *world) tick() {
	dt := time.Duration(1+w.rng.IntN(int(w.cfg.Visibility/time.Millisecond))) * time.Millisecond
	for _, wk := range w.workers {
		if wk.busy && !wk.dead && !wk.stalled && !wk.lease.IsZero() {
			if room := wk.lease.Sub(w.now) - time.Millisecond; room < dt {
				dt = max(room, 0)
			}
		}
	}
	w.now = w.now.Add(dt)
}

func (w *world) deliver(wk *worker, m *message) {
	m.receives++
	if m.receives > w.cfg.MaxReceives {
		m.deleted = true
		w.dead[m.key] = true
		w.stats.DeadLetters++
		w.logf("dead-letter %s (%s)", m.id, m.key)
		return
	}
	w.seq++
	m.receipt = w.seq
	m.visibleAt = w.now.Add(w.cfg.Visibility)
	w.stats.Deliveries++
	*wk = worker{id: wk.id, busy: true, msg: m, receipt: m.receipt, resume: make(chan bool), yielded: make(chan point)}
	w.logf("w%d receives %s (%s), receive %d", wk.id, m.id, m.key, m.receives)
	go w.process(wk)
	wk.at = <-wk.yielded
}

// advance lets wk run to its next yield point.
func (w *world) advance(wk *worker) {
	if wk.at == beforeAck {
		if wk.ack && wk.msg.receipt == wk.receipt {
			wk.msg.deleted = true
			w.logf("w%d acks %s", wk.id, wk.msg.id)
		}
	}
	wk.resume <- true
	wk.at = <-wk.yielded
	if wk.at == finished {
		wk.busy = false
	}
}

// crash kills wk where it stands: no deferred release, no ack.
func (w *world) crash(wk *worker) {
	w.stats.Crashes++
	if wk.unstored != "" {
		w.allowed[wk.unstored]++
	}
	w.logf("w%d crashes at %d (holding %q, unstored %q)", wk.id, wk.at, wk.holding, wk.unstored)
	wk.dead = true
	wk.resume <- false
	<-wk.yielded // the goroutine's last word
	*wk = worker{id: wk.id}
}

func (w *world) killAll() {
	for _, wk := range w.workers {
		if wk.busy {
			wk.resume <- false
			<-wk.yielded
		}
	}
}

// yield hands control back to the scheduler; a crash ends the goroutine
// without running Do's release (runtime.Goexit runs deferred calls, but
// recover returns nil).
func (wk *worker) yield(p point) {
	wk.yielded <- p
	if !<-wk.resume {
		wk.yielded <- finished
		runtime.Goexit()
	}
}

// process is one delivery, run in its own goroutine, one step at a time.
func (w *world) process(wk *worker) {
	store := &stepStore{w: w, wk: wk}
	r, err := idem.Do(context.Background(), store, idem.Key(wk.msg.key), "", func(ctx context.Context) ([]byte, error) {
		key := wk.msg.key
		w.calls[key]++
		w.stats.Calls++
		wk.inCall, wk.unstored = key, key
		if w.rng.Float64() < w.cfg.StallRate {
			// The lease will not cover this call: a second call is allowed.
			wk.stalled = true
			w.allowed[key]++
			w.stats.Stalls++
		}
		result := fmt.Appendf(nil, "%s by %s", key, wk.owner)
		w.results[wk.owner] = result
		w.logf("w%d calls the provider for %s (call %d)", wk.id, key, w.calls[key])
		wk.yield(callStarted)
		// The call ends within the lease: that is the promise's condition.
		call := time.Duration(1+w.rng.IntN(int(w.cfg.MaxCall/time.Millisecond))) * time.Millisecond
		wk.until = w.now.Add(call)
		if !wk.stalled {
			wk.until = minTime(wk.until, wk.lease.Add(-time.Millisecond))
		} else {
			wk.until = wk.until.Add(w.cfg.Lease)
		}
		wk.yield(callRunning)
		wk.inCall = ""
		if w.rng.Float64() < w.cfg.FailRate {
			// The provider answered an error: nothing billed to replay.
			w.calls[key]--
			w.stats.Calls--
			w.stats.Failures++
			wk.unstored = ""
			w.logf("w%d: the provider failed for %s", wk.id, key)
			return nil, errProvider
		}
		return result, nil
	}, idem.WithClock(idem.ClockFunc(func() time.Time { return w.now })), idem.WithLease(w.cfg.Lease))
	switch {
	case errors.Is(err, idem.ErrLeaseLost):
		w.stats.FencedOff++
		w.logf("w%d: %v", wk.id, err)
	case err != nil:
		w.logf("w%d: %v", wk.id, err)
	case r.Outcome == idem.Replayed:
		w.stats.Replays++
		wk.ack = true
	case r.Outcome == idem.InProgress:
		w.stats.InProgress++
	default:
		wk.ack = true
		if r.TookOver {
			w.stats.TakeOvers++
		}
	}
	wk.holding, wk.unstored, wk.lease = "", "", time.Time{}
	wk.yield(beforeAck)
	wk.yielded <- finished
}

// check tests the invariants that hold after every step.
func (w *world) check() error {
	if w.broken != nil {
		return w.broken
	}
	inCall := map[string]int{}
	for _, wk := range w.workers {
		if wk.busy && !wk.dead && !wk.stalled && wk.inCall != "" {
			if other, ok := inCall[wk.inCall]; ok {
				return fmt.Errorf("workers %d and %d are both calling the provider for %s", other, wk.id, wk.inCall)
			}
			inCall[wk.inCall] = wk.id
		}
	}
	for key, n := range w.calls {
		if n > 1+w.allowed[key] {
			return fmt.Errorf("%s reached the provider %d times with %d crashes between call and store", key, n, w.allowed[key])
		}
	}
	for key, owner := range w.stored {
		rec, ok := w.store.Get(idem.Key(key))
		if !ok || rec.Status != idem.StatusCompleted {
			return fmt.Errorf("%s was completed by %s but its record is %+v", key, owner, rec)
		}
		if rec.Owner != owner || string(rec.Result) != string(w.results[owner]) {
			return fmt.Errorf("%s holds %q by %s, want %q by %s", key, rec.Result, rec.Owner, w.results[owner], owner)
		}
	}
	return nil
}

// final tests what must hold once everything is quiet.
func (w *world) final() error {
	keys := make([]string, 0, w.cfg.Keys)
	for k := range w.cfg.Keys {
		keys = append(keys, fmt.Sprintf("k%d", k))
	}
	slices.Sort(keys)
	for _, key := range keys {
		if w.dead[key] {
			continue
		}
		rec, ok := w.store.Get(idem.Key(key))
		if !ok || rec.Status != idem.StatusCompleted {
			return fmt.Errorf("%s ended %+v, want COMPLETED or dead-lettered", key, rec)
		}
		if w.calls[key] == 0 {
			return fmt.Errorf("%s is COMPLETED but never reached the provider", key)
		}
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
