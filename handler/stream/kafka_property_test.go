package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/request"
)

// kplan is a random Kafka batch over several topic-partitions and what
// its keys' runs do.
type kplan struct {
	recs        []krec         // partition by partition, each in offset order
	fails       map[string]int // key → how many runs fail first
	panics      map[string]int // key → how many runs panic (after the failures)
	concurrency int
	// listedOnly plays Lambda retrying only the records listed, rather
	// than each partition from its lowest offset listed: AWS's Kafka
	// pages leave which one it does unsaid, and the answer must hold
	// for both.
	listedOnly bool
}

func randomKafkaPlan(r *rand.Rand) kplan {
	p := kplan{fails: map[string]int{}, panics: map[string]int{}, concurrency: 1 + r.IntN(4), listedOnly: r.IntN(2) == 0}
	keys := 1 + r.IntN(12)
	for part := range 1 + r.IntN(4) {
		topic := []string{"orders", "pay-ments"}[part%2]
		offset := int64(r.IntN(1000))
		for range r.IntN(10) {
			offset += 1 + int64(r.IntN(3))          // gaps, as compaction and transactions leave
			key := fmt.Sprintf("k%d", r.IntN(keys)) // duplicates within and across partitions
			kkey := ""
			if r.IntN(3) > 0 {
				kkey = fmt.Sprintf("K%d", r.IntN(3))
			}
			p.recs = append(p.recs, krec{topic: topic, partition: int64(part), offset: offset, kkey: kkey, key: key})
			if _, ok := p.fails[key]; !ok {
				p.fails[key] = max(0, r.IntN(6)-3) // mostly 0, else 1 or 2
				if r.IntN(8) == 0 {
					p.panics[key] = 1
				}
			}
		}
	}
	return p
}

// krunner is the function of a Kafka plan, logging every call.
type krunner struct {
	mu    sync.Mutex
	p     *kplan
	index map[string]int // message id → record
	calls []call
}

func (u *krunner) fn(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	var b body
	if err := json.Unmarshal([]byte(msg.Body), &b); err != nil {
		return nil, err
	}
	i, ok := u.index[msg.MessageId]
	if !ok {
		return nil, fmt.Errorf("message id %q is no record's", msg.MessageId)
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

// TestKafkaProperty drives the Kafka handler with random batches over 1
// to 4 topic-partitions (random Kafka keys or none, idempotency keys
// repeated within and across partitions, failures and panics, 1 to 4
// records at once) and plays Lambda: it sends each partition again from
// its checkpoint, the lowest offset reported for it (or, in half the
// rounds, only the records reported), until nothing is reported. It checks that every record whose key has not succeeded is
// reported, so that no checkpoint passes one; that within a batch a
// partition's runs go in offset order and stop at its first run that did
// not succeed; that a partition holds only for a failure of its own (or a
// key another partition has in progress); that each key's work succeeds
// exactly once; and that, per partition, first runs go in offset order.
func TestKafkaProperty(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 43))
	for round := range 400 {
		p := randomKafkaPlan(r)
		checkKafka(t, p)
		if t.Failed() {
			t.Fatalf("seed %d, round %d: %+v", seed, round, p)
		}
	}
}

func checkKafka(t *testing.T, p kplan) {
	t.Helper()
	planned := 0
	for k := range p.fails {
		planned += p.fails[k] + p.panics[k]
	}
	u := &krunner{p: &p, index: map[string]int{}}
	for i, rc := range p.recs {
		u.index[rc.id()] = i
	}
	h, err := handler.New(storeFor(t), u.fn, handler.WithRequest(request.Identity{Namespace: namespace}), handler.WithConcurrency(p.concurrency), quiet())
	if err != nil {
		t.Fatal(err)
	}
	s := stream.New(h)
	succeeded := map[string]int{} // key → successful runs
	pending := slices.Clone(p.recs)
	for batch := 0; len(pending) > 0; batch++ {
		if batch > planned+len(p.recs) {
			t.Errorf("still not done after %d batches, with %d failures planned", batch, planned)
			return
		}
		before := len(u.calls)
		resp, err := s.Kafka(context.Background(), kafkaEvent(pending...))
		if err != nil {
			t.Errorf("batch %d: %v", batch, err)
			return
		}
		calls := u.calls[before:]
		for _, c := range calls {
			if c.ok {
				succeeded[p.recs[c.index].key]++
			}
		}
		checkKafkaBatchCalls(t, p, calls)
		reported := map[int]bool{}
		for _, f := range resp.BatchItemFailures {
			id := fmt.Sprintf("%s@%d", f.ItemIdentifier.Partition, f.ItemIdentifier.Offset)
			i, ok := u.index[id]
			if !ok || !slices.ContainsFunc(pending, func(r krec) bool { return r.id() == id }) {
				t.Errorf("batch %d: reported %s, which is no record of the batch", batch, id)
				return
			}
			if reported[i] {
				t.Errorf("batch %d: reported %s twice", batch, id)
			}
			reported[i] = true
		}
		checkpoint := map[string]int{} // topic-partition → its lowest reported record
		for _, rc := range pending {
			i := u.index[rc.id()]
			if succeeded[rc.key] == 0 && !reported[i] {
				t.Errorf("batch %d: record %s, whose key %s has not succeeded, is not reported", batch, rc.id(), rc.key)
			}
			if _, ok := checkpoint[rc.tp()]; !ok && reported[i] {
				checkpoint[rc.tp()] = i
			}
		}
		checkHoldsExplained(t, p, pending, checkpoint, calls)
		var next []krec // what Lambda sends again: each partition from its checkpoint, or the records listed
		for _, rc := range pending {
			if at, ok := checkpoint[rc.tp()]; ok && u.index[rc.id()] >= at && (!p.listedOnly || reported[u.index[rc.id()]]) {
				next = append(next, rc)
			}
		}
		for tp, at := range checkpoint {
			for _, rc := range pending {
				if rc.tp() == tp && u.index[rc.id()] < at && succeeded[rc.key] == 0 {
					t.Errorf("batch %d: the checkpoint %s passes %s, whose key %s has not succeeded", batch, p.recs[at].id(), rc.id(), rc.key)
				}
			}
		}
		pending = next
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
	last := map[string]int{} // topic-partition → the record of its latest first call
	for i, rc := range p.recs {
		n, ok := first[i]
		if !ok {
			continue
		}
		if j, ok := last[rc.tp()]; ok && first[j] > n {
			t.Errorf("%s: %s first ran before %s", rc.tp(), rc.id(), p.recs[j].id())
		}
		last[rc.tp()] = i
	}
}

// checkKafkaBatchCalls checks one batch's calls: per partition, in offset
// order, none twice, and none after one that did not succeed.
func checkKafkaBatchCalls(t *testing.T, p kplan, calls []call) {
	t.Helper()
	prev := map[string]call{}
	for _, c := range calls {
		tp := p.recs[c.index].tp()
		if b, ok := prev[tp]; ok {
			if c.index <= b.index {
				t.Errorf("%s: %s ran after %s", tp, p.recs[c.index].id(), p.recs[b.index].id())
			}
			if !b.ok {
				t.Errorf("%s: %s ran after %s failed", tp, p.recs[c.index].id(), p.recs[b.index].id())
			}
		}
		prev[tp] = c
	}
}

// checkHoldsExplained checks that each partition's checkpoint, its first
// record reported, is there for a reason of the partition's own: the
// record ran in the batch and did not succeed, or its key is also a
// record's of another partition in the batch (in progress there). A
// partition held by another's failure fails it.
func checkHoldsExplained(t *testing.T, p kplan, pending []krec, checkpoint map[string]int, calls []call) {
	t.Helper()
	for tp, at := range checkpoint {
		failed := slices.ContainsFunc(calls, func(c call) bool { return c.index == at && !c.ok })
		shared := slices.ContainsFunc(pending, func(r krec) bool { return r.tp() != tp && r.key == p.recs[at].key })
		if !failed && !shared {
			t.Errorf("%s is held at %s, which did not fail and whose key %s no other partition has", tp, p.recs[at].id(), p.recs[at].key)
		}
	}
}
