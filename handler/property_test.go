package handler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/storekit"
	"github.com/idemq/idemq/request"
)

var (
	propBatches = flag.Int("handler.batches", 3000, "how many random batches TestBatchProperties explores")
	propSeed    = flag.Uint64("handler.seed", 1, "the first batch's seed (replay one: -handler.seed=N -handler.batches=1)")
)

// behaviour is what the function does for a key, or what holds the key
// before the batch.
type behaviour int

const (
	succeeds   behaviour = iota
	fails                // returns an error
	panics               // panics
	stored               // COMPLETED before the batch: replayed
	heldByPeer           // IN_PROGRESS on another worker with a live lease
)

// propBatch is one generated batch and the world it runs in.
type propBatch struct {
	seed        uint64
	fifo        bool
	isolation   bool
	concurrency int // 0: the default
	keys        map[string]behaviour
	recs        []propRecord
}

type propRecord struct {
	id, key, group string
	bad            string // "" or why the body has no key
}

func (p *propBatch) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d fifo=%v isolation=%v concurrency=%d keys=%v\n", p.seed, p.fifo, p.isolation, p.concurrency, p.keys)
	for i, r := range p.recs {
		fmt.Fprintf(&b, "  %d %s key=%s group=%s %s\n", i, r.id, r.key, r.group, r.bad)
	}
	return b.String()
}

func genBatch(seed uint64) *propBatch {
	rng := rand.New(rand.NewPCG(seed, seed*0x9e3779b97f4a7c15))
	p := &propBatch{seed: seed, fifo: rng.IntN(3) > 0, keys: map[string]behaviour{}}
	p.isolation = p.fifo && rng.IntN(2) == 0
	p.concurrency = []int{1, 2, 0}[rng.IntN(3)]
	n := 1 + rng.IntN(10) // FIFO batches hold at most 10
	nKeys := 1 + rng.IntN(n)
	for k := range nKeys {
		// Mostly successes, so that long runs of records settle.
		p.keys[fmt.Sprintf("k%d", k)] = []behaviour{succeeds, succeeds, succeeds, fails, panics, stored, heldByPeer}[rng.IntN(7)]
	}
	groups := 1 + rng.IntN(4)
	for i := range n {
		r := propRecord{id: fmt.Sprintf("m%d", i), key: fmt.Sprintf("k%d", rng.IntN(nKeys)), group: fmt.Sprintf("g%d", rng.IntN(groups))}
		switch rng.IntN(12) {
		case 0:
			r.bad = "not JSON"
		case 1:
			r.bad = "no key"
		}
		p.recs = append(p.recs, r)
	}
	return p
}

func (p *propBatch) event() events.SQSEvent {
	var ev events.SQSEvent
	for _, r := range p.recs {
		m := handlerbundle.Msg(r.id, r.key)
		switch r.bad {
		case "not JSON":
			m.Body = `{"idempotency_key":`
		case "no key":
			m.Body = `{"prompt":"p"}`
		}
		if p.fifo {
			m = handlerbundle.FIFOMsg(r.id, r.key, r.group)
			m.Body = handlerbundle.Msg(r.id, r.key).Body
			if r.bad != "" {
				m.Body = map[string]string{"not JSON": `{"idempotency_key":`, "no key": `{"prompt":"p"}`}[r.bad]
			}
		}
		ev.Records = append(ev.Records, m)
	}
	return ev
}

// propLog is what the function did, in order.
type propLog struct {
	mu     sync.Mutex
	seq    int
	starts map[string]int // message id → when its work started
	okEnd  map[string]int // key → when its work ended with a result
	runs   map[string]int // key → how many times its work started
}

func (l *propLog) tick() int { l.seq++; return l.seq }

// want is the model: which records are acknowledged and which keys run.
// Records are taken in input order, which every group's order and every
// copy's leader (the key's first record) respect. On a FIFO queue a record
// after a failure of its group fails; without group isolation every record
// after the batch's first failure is reported too.
func (p *propBatch) want() (acked []bool, ran map[string]bool) {
	acked = make([]bool, len(p.recs))
	ran = map[string]bool{}
	groupFailed := map[string]bool{}
	leader := map[string]int{}
	firstFailure := len(p.recs)
	for i, r := range p.recs {
		ok := false
		switch {
		case r.bad != "":
		case p.fifo && groupFailed[r.group]:
		default:
			if l, seen := leader[r.key]; seen {
				ok = acked[l]
				break
			}
			leader[r.key] = i
			switch p.keys[r.key] {
			case succeeds:
				ok, ran[r.key] = true, true
			case fails, panics:
				ran[r.key] = true
			case stored:
				ok = true
			}
		}
		acked[i] = ok
		if !ok {
			groupFailed[r.group] = true
			firstFailure = min(firstFailure, i)
		}
	}
	if p.fifo && !p.isolation {
		for i := firstFailure; i < len(acked); i++ {
			acked[i] = false
		}
	}
	return acked, ran
}

// errOrder marks a broken FIFO order.
var errOrder = errors.New("FIFO order broken")

// check runs the batch and returns what broke, if anything.
func (p *propBatch) check() error {
	store := must(memstore.New())
	now := time.Now()
	for k, be := range p.keys {
		key, _ := idem.ClientKey(handlerbundle.Namespace, k)
		switch be {
		case stored:
			owner := storekit.NewOwner()
			if _, err := store.Claim(context.Background(), idem.ClaimRequest{Key: key, Owner: owner, Now: now, LeaseUntil: now.Add(time.Hour), ExpiresAt: now.Add(24 * time.Hour)}); err != nil {
				return err
			}
			if err := store.Complete(context.Background(), idem.Completion{Key: key, Owner: owner, Result: []byte("result:" + k), ExpiresAt: now.Add(24 * time.Hour)}); err != nil {
				return err
			}
		case heldByPeer:
			if _, err := store.Claim(context.Background(), idem.ClaimRequest{Key: key, Owner: storekit.NewOwner(), Now: now, LeaseUntil: now.Add(time.Hour), ExpiresAt: now.Add(24 * time.Hour)}); err != nil {
				return err
			}
		}
	}
	log := &propLog{starts: map[string]int{}, okEnd: map[string]int{}, runs: map[string]int{}}
	var logs bytes.Buffer // the handler's lines; slog's handler writes one at a time
	var replayMu sync.Mutex
	replays := map[string]string{}
	keyOf := func(m events.SQSMessage) string {
		return strings.TrimSuffix(strings.TrimPrefix(m.Body, `{"idempotency_key":"`), `","prompt":"p"}`)
	}
	fn := func(_ context.Context, m events.SQSMessage) ([]byte, error) {
		k := keyOf(m)
		log.mu.Lock()
		log.starts[m.MessageId] = log.tick()
		log.runs[k]++
		log.mu.Unlock()
		for range 3 {
			runtime.Gosched() // let other sequences interleave
		}
		switch p.keys[k] {
		case fails:
			return nil, errors.New("failed on purpose")
		case panics:
			panic("panics on purpose")
		}
		log.mu.Lock()
		log.okEnd[k] = log.tick()
		log.mu.Unlock()
		return []byte("result:" + k), nil
	}
	opts := []handler.Option{
		handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}),
		handler.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))),
		handler.WithReplayHook(func(_ context.Context, m events.SQSMessage, result []byte) error {
			replayMu.Lock()
			defer replayMu.Unlock()
			replays[m.MessageId] = string(result)
			return nil
		}),
	}
	if p.concurrency > 0 {
		opts = append(opts, handler.WithConcurrency(p.concurrency))
	}
	if p.isolation {
		opts = append(opts, func(c *handler.Config) { c.FIFOGroupIsolation = true })
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := must(handler.New(store, fn, opts...))(ctx, p.event())
	reported := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		reported[f.ItemIdentifier] = true
	}
	// The invocation fails, with the response listing every message,
	// exactly when no message is acknowledged and the summary counts a
	// failure.
	var summary struct{ Failed int }
	for line := range bytes.Lines(logs.Bytes()) {
		if bytes.Contains(line, []byte(`"msg":"idemq: batch"`)) {
			if jerr := json.Unmarshal(line, &summary); jerr != nil {
				return jerr
			}
		}
	}
	allBack := len(reported) == len(p.recs)
	switch {
	case err != nil && !errors.Is(err, handler.ErrBatchFailed):
		return fmt.Errorf("the handler failed the batch: %w", err)
	case err != nil && !(allBack && summary.Failed > 0):
		return fmt.Errorf("the handler failed the batch with %d of %d messages listed and %d failed: %w", len(reported), len(p.recs), summary.Failed, err)
	case err == nil && allBack && summary.Failed > 0:
		return fmt.Errorf("no message acknowledged, %d failed, and the invocation succeeded", summary.Failed)
	}

	// Order: no record's work starts before every earlier record of its
	// group has settled with a result (its own work's, or its key's
	// execution's, or a stored one).
	if p.fifo {
		for i, r := range p.recs {
			start, started := log.starts[r.id]
			if !started {
				continue
			}
			for _, e := range p.recs[:i] {
				if e.group != r.group {
					continue
				}
				end, ended := log.okEnd[e.key]
				settled := e.bad == "" && (p.keys[e.key] == stored || (ended && end < start))
				if !settled {
					return fmt.Errorf("%w: %s's work started before %s (same group, earlier) settled with a result", errOrder, r.id, e.id)
				}
			}
		}
	}
	// The response, against the model.
	acked, ran := p.want()
	for i, r := range p.recs {
		if acked[i] == reported[r.id] {
			return fmt.Errorf("%s: reported %v, the model says acknowledged %v", r.id, reported[r.id], acked[i])
		}
		// An acknowledged record that did not run its work replayed the
		// key's one result.
		if _, own := log.starts[r.id]; acked[i] && !own {
			if got := replays[r.id]; got != "result:"+r.key {
				return fmt.Errorf("%s was acknowledged without running and replayed %q", r.id, got)
			}
		}
	}
	// Work: one execution per key at most; with the model's outcome fixed
	// (group isolation or a standard queue) exactly the model's keys run.
	for k, n := range log.runs {
		if n > 1 {
			return fmt.Errorf("%s ran %d times in one batch", k, n)
		}
	}
	if !p.fifo || p.isolation {
		for k := range p.keys {
			if ran[k] != (log.runs[k] == 1) {
				return fmt.Errorf("%s ran %d times, the model says ran %v", k, log.runs[k], ran[k])
			}
		}
	} else {
		for k := range log.runs {
			if !ran[k] {
				return fmt.Errorf("%s ran, the model says it could not", k)
			}
		}
	}
	return nil
}

// Random FIFO and standard batches — copies within and across groups,
// failing and panicking keys, keys stored or held elsewhere, bodies without
// a key, group isolation on and off, concurrency 1, 2 and the default —
// keep FIFO order and answer Lambda as the model says.
func TestBatchProperties(t *testing.T) {
	t.Parallel()
	var fifo, broken, order int
	for seed := *propSeed; seed < *propSeed+uint64(*propBatches); seed++ {
		p := genBatch(seed)
		if p.fifo {
			fifo++
		}
		if err := p.check(); err != nil {
			broken++
			if errors.Is(err, errOrder) {
				order++
			}
			if broken <= 3 {
				t.Errorf("%v\n%s", err, p)
			}
		}
	}
	if broken > 0 {
		t.Errorf("%d of %d batches broke a property (%d FIFO order); replay one with -handler.seed=N -handler.batches=1", broken, *propBatches, order)
	}
	if *propBatches >= 1000 && (fifo == 0 || fifo == *propBatches) {
		t.Errorf("the batches were %d FIFO of %d: both kinds must be explored", fifo, *propBatches)
	}
	t.Logf("%d batches (%d FIFO), %d broke a property", *propBatches, fifo, broken)
}
