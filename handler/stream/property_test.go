package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/request"
)

// call is one run of the function: the record's index in the shard, and
// whether it succeeded.
type call struct {
	index int
	ok    bool
}

// plan is a random shard and what its keys' runs do.
type plan struct {
	recs        []rec
	fails       map[string]int // key → how many runs fail first
	panics      map[string]int // key → how many runs panic (after the failures)
	concurrency int
}

func randomPlan(r *rand.Rand) plan {
	p := plan{fails: map[string]int{}, panics: map[string]int{}, concurrency: 1 + r.IntN(4)}
	pks, keys := 1+r.IntN(4), 1+r.IntN(10)
	for i := range r.IntN(30) {
		key := fmt.Sprintf("k%d", r.IntN(keys)) // duplicates within and across partition keys
		p.recs = append(p.recs, rec{seq: fmt.Sprintf("%03d", i), pk: fmt.Sprintf("p%d", r.IntN(pks)), key: key})
		if _, ok := p.fails[key]; !ok {
			p.fails[key] = max(0, r.IntN(6)-3) // mostly 0, else 1 or 2
			if r.IntN(8) == 0 {
				p.panics[key] = 1
			}
		}
	}
	return p
}

// runner is the function of a plan's shard, logging every call.
type runner struct {
	mu    sync.Mutex
	p     *plan
	calls []call
}

func (u *runner) fn(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	var b body
	if err := json.Unmarshal([]byte(msg.Body), &b); err != nil {
		return nil, err
	}
	i, err := strconv.Atoi(msg.MessageId)
	if err != nil {
		return nil, err
	}
	u.mu.Lock()
	fail, panics := u.p.fails[b.Key] > 0, false
	if fail {
		u.p.fails[b.Key]--
	} else if panics = u.p.panics[b.Key] > 0; panics {
		u.p.panics[b.Key]--
	}
	u.calls = append(u.calls, call{index: i, ok: !fail && !panics})
	u.mu.Unlock()
	if fail {
		return nil, errors.New("the provider said no")
	}
	if panics {
		panic("the provider's client panicked")
	}
	return []byte(b.Key), nil
}

// TestShardProperty drives the Kinesis handler with random shard batches
// (random partition keys and idempotency keys, a key's duplicates within
// and across partition keys, failures and panics, 1 to 4 records at once)
// and plays Lambda: it sends the shard again from each reported
// checkpoint until none is reported. It checks that the checkpoint never
// passes a record whose key's work has not succeeded; that within a
// batch a partition key's runs go in record order and stop at its first
// run that did not succeed; that each key's work succeeds exactly once
// over all the retries; and that, per partition key, the order of first
// runs is the order of the records.
func TestShardProperty(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 43))
	for round := range 400 {
		p := randomPlan(r)
		checkShard(t, p)
		if t.Failed() {
			t.Fatalf("seed %d, round %d: %+v", seed, round, p)
		}
	}
}

func checkShard(t *testing.T, p plan) {
	t.Helper()
	planned := 0
	for k := range p.fails {
		planned += p.fails[k] + p.panics[k]
	}
	u := &runner{p: &p}
	h, err := handler.New(storeFor(t), u.fn, handler.WithRequest(request.Identity{Namespace: namespace}), handler.WithConcurrency(p.concurrency), quiet())
	if err != nil {
		t.Fatal(err)
	}
	s := stream.New(h)
	succeeded := map[string]int{} // key → successful runs
	start := 0
	for batch := 0; ; batch++ {
		if batch > planned {
			t.Errorf("still not checkpointed after %d batches, with %d failures planned", batch, planned)
			return
		}
		before := len(u.calls)
		resp, err := s.Kinesis(context.Background(), kinesisEvent(p.recs[start:]...))
		if err != nil {
			t.Errorf("batch from %d: %v", start, err)
			return
		}
		calls := u.calls[before:]
		for _, c := range calls {
			if c.ok {
				succeeded[p.recs[c.index].key]++
			}
		}
		checkBatchCalls(t, p, calls)
		end := len(p.recs) // where the checkpoint is: the records before it are passed
		if len(resp.BatchItemFailures) > 1 {
			t.Errorf("batch from %d: %d batch item failures; want at most one (one shard)", start, len(resp.BatchItemFailures))
		}
		if len(resp.BatchItemFailures) > 0 {
			at, err := strconv.Atoi(resp.BatchItemFailures[0].ItemIdentifier)
			if err != nil || at < start || at >= len(p.recs) {
				t.Errorf("batch from %d: checkpoint %q is no record of the batch", start, resp.BatchItemFailures[0].ItemIdentifier)
				return
			}
			end = at
		}
		for i := start; i < end; i++ {
			if succeeded[p.recs[i].key] == 0 {
				t.Errorf("batch from %d: the checkpoint %d passes record %d, whose key %s has not succeeded", start, end, i, p.recs[i].key)
			}
		}
		if end == len(p.recs) {
			break
		}
		start = end
	}
	for _, rc := range p.recs {
		if succeeded[rc.key] != 1 {
			t.Errorf("key %s succeeded %d times; want 1", rc.key, succeeded[rc.key])
		}
	}
	first := map[int]int{} // record → its first call's place
	for n, c := range u.calls {
		if _, ok := first[c.index]; !ok {
			first[c.index] = n
		}
	}
	last := map[string]int{} // partition key → the record of its latest first call
	for i, rc := range p.recs {
		n, ok := first[i]
		if !ok {
			continue
		}
		if j, ok := last[rc.pk]; ok && first[j] > n {
			t.Errorf("partition key %s: record %d first ran before record %d", rc.pk, i, j)
		}
		last[rc.pk] = i
	}
}

// checkBatchCalls checks one batch's calls: per partition key, in record
// order, none twice, and none after one that did not succeed.
func checkBatchCalls(t *testing.T, p plan, calls []call) {
	t.Helper()
	prev := map[string]call{}
	for _, c := range calls {
		pk := p.recs[c.index].pk
		if b, ok := prev[pk]; ok {
			if c.index <= b.index {
				t.Errorf("partition key %s: record %d ran after record %d", pk, c.index, b.index)
			}
			if !b.ok {
				t.Errorf("partition key %s: record %d ran after record %d failed", pk, c.index, b.index)
			}
		}
		prev[pk] = c
	}
}
