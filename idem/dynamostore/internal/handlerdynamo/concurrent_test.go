package handler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/internal/storekit"
	"github.com/idemq/idemq/request"
)

// invocations is how many batches one process runs at once in these tests,
// as Lambda Managed Instances do with AWS_LAMBDA_MAX_CONCURRENCY.
const invocations = 8

// One wrapped handler serving 8 invocations at once, as a Lambda Managed
// Instances execution environment does, over keys that overlap within and
// across the batches in flight: every key runs to completion exactly once,
// never twice at a time, and every acknowledged message's key is COMPLETED
// in the store when the response says so. On a FIFO queue a group's
// messages are acknowledged in order and no message's work starts before
// its group's earlier messages are done, even when a group's messages are
// redelivered into a second batch while the first still runs (SQS keeps a
// group in one batch at a time, but a visibility timeout that passes
// mid-invocation hands the same messages out again). Run it with -race.
func TestConcurrentInvocations(t *testing.T) {
	t.Parallel()
	stores := []struct {
		name string
		new  func(t *testing.T) idem.Store
	}{
		{"memstore", func(*testing.T) idem.Store { return must(memstore.New()) }},
		{"dynamodb", func(t *testing.T) idem.Store {
			client := dynamotest.Client(t)
			return must(dynamostore.New(client, dynamotest.NewTable(t, client)))
		}},
	}
	for _, st := range stores {
		for _, fifo := range []bool{false, true} {
			name := st.name + "/standard"
			if fifo {
				name = st.name + "/fifo"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				newSim(t, st.new(t), fifo, 7).run()
			})
		}
	}
}

// sim is a queue delivering to one process that runs `invocations`
// batches at once, and what the function saw.
type sim struct {
	t     *testing.T
	store idem.Store
	fifo  bool
	rng   *rand.Rand
	h     handler.Handler
	emf   *bytes.Buffer // written by every invocation; not safe for concurrent writers on purpose
	logs  *handlerbundle.SyncBuffer

	msgs    map[string]events.SQSMessage
	keyOf   map[string]string   // message id → key
	order   map[string][]string // FIFO: group → its message ids in send order
	pending []string            // ids not yet acknowledged, in send order

	mu       sync.Mutex
	running  map[string]int // key → executions running now
	started  map[string]int // key → executions started
	done     map[string]int // key → executions that returned a result
	failures int            // violations seen by the function
}

// newSim makes 60 messages over 24 keys (so most keys have copies) spread
// over 6 message groups; keys whose number is a multiple of failEvery fail
// their first execution.
func newSim(t *testing.T, store idem.Store, fifo bool, failEvery int) *sim {
	s := &sim{t: t, store: store, fifo: fifo, rng: rand.New(rand.NewPCG(22, uint64(len(t.Name())))),
		emf: &bytes.Buffer{}, logs: &handlerbundle.SyncBuffer{},
		msgs: map[string]events.SQSMessage{}, keyOf: map[string]string{}, order: map[string][]string{},
		running: map[string]int{}, started: map[string]int{}, done: map[string]int{}}
	for i := range 60 {
		id, k, g := fmt.Sprintf("m%02d", i), fmt.Sprintf("k%02d", s.rng.IntN(24)), fmt.Sprintf("g%d", i%6)
		m := handlerbundle.Msg(id, k)
		if fifo {
			m = handlerbundle.FIFOMsg(id, k, g)
		}
		s.msgs[id], s.keyOf[id] = m, k
		s.order[g] = append(s.order[g], id)
		s.pending = append(s.pending, id)
	}
	fn := func(ctx context.Context, m events.SQSMessage) ([]byte, error) {
		k := s.keyOf[m.MessageId]
		s.mu.Lock()
		if s.running[k] > 0 {
			s.violation("key %s executed twice at once (message %s)", k, m.MessageId)
		}
		if s.done[k] > 0 {
			s.violation("key %s executed again after it was done (message %s)", k, m.MessageId)
		}
		if s.fifo {
			s.checkOrder(m)
		}
		s.running[k]++
		s.started[k]++
		first := s.started[k] == 1
		s.mu.Unlock()
		time.Sleep(time.Duration(s.jitter()) * time.Microsecond) // let the invocations overlap
		var num int
		fmt.Sscanf(k, "k%d", &num)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.running[k]--
		if first && num%failEvery == 0 {
			return nil, errors.New("first attempt fails on purpose")
		}
		s.done[k]++
		return []byte("result of " + k), nil
	}
	s.h = must(handler.New(store, fn, handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}), handler.WithConcurrency(4),
		func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 1000, 1<<20 }, handler.WithEMF(s.emf, "idemq-test"),
		handler.WithLogger(slog.New(slog.NewJSONHandler(s.logs, nil)))))
	return s
}

func (s *sim) jitter() int {
	s.mu.Lock() // rand.Rand is not safe for concurrent use; s.mu is free here
	defer s.mu.Unlock()
	return s.rng.IntN(2000)
}

// violation records a broken guarantee; s.mu is held.
func (s *sim) violation(format string, args ...any) {
	s.failures++
	s.t.Errorf(format, args...)
}

// checkOrder fails a FIFO message whose work starts before the work of
// every earlier message of its group has returned a result; s.mu is held.
func (s *sim) checkOrder(m events.SQSMessage) {
	for _, id := range s.order[m.Attributes["MessageGroupId"]] {
		if id == m.MessageId {
			return
		}
		if s.done[s.keyOf[id]] == 0 {
			s.violation("FIFO order: %s (key %s) started before %s (key %s) of its group was done",
				m.MessageId, s.keyOf[m.MessageId], id, s.keyOf[id])
			return
		}
	}
}

// run delivers rounds of `invocations` batches at once until every message
// is acknowledged.
func (s *sim) run() {
	rounds := 0
	for ; len(s.pending) > 0; rounds++ {
		if rounds == 100 {
			s.t.Fatalf("%d messages still unacknowledged after %d rounds: %v", len(s.pending), rounds, s.pending)
		}
		batches := s.deliveries()
		resps := make([]events.SQSEventResponse, len(batches))
		errs := make([]error, len(batches))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i, batch := range batches {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				<-start
				resps[i], errs[i] = s.h(ctx, events.SQSEvent{Records: batch})
			})
		}
		close(start)
		wg.Wait()
		acked := map[string]bool{}
		for i, batch := range batches {
			if errs[i] != nil {
				s.t.Fatalf("invocation %d returned an error: %v", i, errs[i])
			}
			failed := map[string]bool{}
			for _, f := range resps[i].BatchItemFailures {
				failed[f.ItemIdentifier] = true
			}
			for _, m := range batch {
				if !failed[m.MessageId] {
					acked[m.MessageId] = true
				}
			}
		}
		s.settle(acked)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.started {
		if s.done[k] != 1 {
			s.t.Errorf("key %s executed to completion %d times, want 1", k, s.done[k])
		}
	}
	keys := map[string]bool{}
	for _, k := range s.keyOf {
		keys[k] = true
	}
	if len(s.done) != len(keys) {
		s.t.Errorf("%d keys done, want %d", len(s.done), len(keys))
	}
	lines := bytes.Split(bytes.TrimSpace(s.emf.Bytes()), []byte("\n"))
	if len(lines) != rounds*invocations {
		s.t.Errorf("%d EMF lines, want one per invocation: %d", len(lines), rounds*invocations)
	}
	for _, l := range lines {
		if !json.Valid(l) {
			s.t.Errorf("EMF line is not JSON (interleaved writes?): %.200s", l)
			break
		}
	}
	s.t.Logf("%d rounds of %d invocations; %d keys, %d executions started; records found in progress: %d",
		rounds, invocations, len(keys), sum(s.started), s.inProgressRecords())
}

// inProgressRecords adds up the in_progress counts of the batch summaries.
func (s *sim) inProgressRecords() int {
	n := 0
	for _, line := range bytes.Split(s.logs.Bytes(), []byte("\n")) {
		var l struct {
			Msg        string `json:"msg"`
			InProgress int    `json:"in_progress"`
		}
		if json.Unmarshal(line, &l) == nil && l.Msg == "idemq: batch" {
			n += l.InProgress
		}
	}
	return n
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// deliveries are one round's batches. Standard: each batch takes up to 10
// pending messages at random, so a message can be in several batches at
// once (at-least-once delivery). FIFO: each group's pending messages go,
// in order, to one batch, interleaved with other groups' (up to 10
// records a batch); a third of the groups are also redelivered, the same
// messages in order, to a second batch in flight at the same time.
func (s *sim) deliveries() [][]events.SQSMessage {
	batches := make([][]events.SQSMessage, invocations)
	if !s.fifo {
		for i := range batches {
			for _, j := range s.rng.Perm(len(s.pending))[:min(10, len(s.pending))] {
				batches[i] = append(batches[i], s.msgs[s.pending[j]])
			}
		}
		return batches
	}
	runs := make([][][]string, invocations) // batch → its groups' runs
	room := make([]int, invocations)
	for i := range room {
		room[i] = 10
	}
	add := func(b int, run []string) {
		n := min(len(run), room[b])
		if n > 0 {
			runs[b] = append(runs[b], run[:n])
			room[b] -= n
		}
	}
	for _, g := range slices.Sorted(mapKeys(s.order)) {
		var run []string
		for _, id := range s.order[g] {
			if slices.Contains(s.pending, id) {
				run = append(run, id)
			}
		}
		if len(run) == 0 {
			continue
		}
		b := s.rng.IntN(invocations)
		add(b, run)
		if s.rng.IntN(3) == 0 {
			add((b+1+s.rng.IntN(invocations-1))%invocations, run)
		}
	}
	for b := range runs {
		for len(runs[b]) > 0 { // interleave the groups, each in its order
			r := s.rng.IntN(len(runs[b]))
			batches[b] = append(batches[b], s.msgs[runs[b][r][0]])
			if runs[b][r] = runs[b][r][1:]; len(runs[b][r]) == 0 {
				runs[b] = slices.Delete(runs[b], r, r+1)
			}
		}
	}
	return batches
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// settle checks the acknowledged messages and takes them out of the queue:
// each one's key is COMPLETED, and on a FIFO queue a group's acknowledged
// messages are the first of its pending ones.
func (s *sim) settle(acked map[string]bool) {
	s.t.Helper()
	now := time.Now()
	for id := range acked {
		k, err := idem.ClientKey(handlerbundle.Namespace, s.keyOf[id])
		if err != nil {
			s.t.Fatal(err)
		}
		c, err := s.store.Claim(context.Background(), idem.ClaimRequest{
			Key: k, Owner: storekit.NewOwner(), Now: now, LeaseUntil: now.Add(time.Second), ExpiresAt: now.Add(time.Minute),
		})
		switch {
		case err != nil:
			s.t.Fatalf("probe %s: %v", k, err)
		case c.Claimed || c.Record.Status != idem.StatusCompleted:
			s.t.Errorf("message %s acknowledged, but its key %s is %s, not COMPLETED", id, k, c)
		}
	}
	if s.fifo {
		for g, ids := range s.order {
			inOrder := true
			for _, id := range ids {
				if !slices.Contains(s.pending, id) {
					continue
				}
				if acked[id] && !inOrder {
					s.t.Errorf("FIFO group %s: %s acknowledged while an earlier message of the group comes back", g, id)
				}
				inOrder = inOrder && acked[id]
			}
		}
	}
	s.pending = slices.DeleteFunc(s.pending, func(id string) bool { return acked[id] })
}
