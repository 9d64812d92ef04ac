// Package demo runs one workload through an in-process at-least-once queue
// with every cause of redelivery switched on, once per variant, and counts
// the provider calls each lets through.
package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"
)

// Config is one scenario.
type Config struct {
	Requests     int           // unique requests (keys)
	Workers      int           // concurrent function instances
	Batch        int           // messages per receive
	CallTime     time.Duration // one provider call
	StoreLatency time.Duration // one store request
	Visibility   time.Duration // the queue's visibility timeout
	MaxReceives  int
	Seed         uint64

	// The four causes of redelivery, each a fraction of requests.
	ShortVisibility float64 // the visibility timeout ends while the call runs
	CrashBeforeAck  float64 // the worker dies after the work, before the delete
	BrokerDuplicate float64 // the queue delivers one message twice
	ProducerResend  float64 // the producer sends the request again (new message id)
}

// DefaultConfig is the scenario `make demo` runs.
func DefaultConfig() Config {
	return Config{
		Requests: 200, Workers: 8, Batch: 5,
		CallTime: 40 * time.Millisecond, StoreLatency: 2 * time.Millisecond,
		Visibility: 300 * time.Millisecond, MaxReceives: 10, Seed: 1,
		ShortVisibility: 0.2, CrashBeforeAck: 0.1, BrokerDuplicate: 0.1, ProducerResend: 0.1,
	}
}

// Report is what one variant did with the workload.
type Report struct {
	Variant        string
	Deliveries     int // messages received, redeliveries included
	Calls          int // provider requests
	Keys           int // unique requests
	DuplicateCalls int // calls beyond the first per key
	Unanswered     int // keys never sent to the provider and not dead-lettered
	Replays        int // deliveries answered from the store
	InProgress     int // deliveries left for a retry because the key was held
	DeadLetters    int
	Causes         Causes
	Elapsed        time.Duration
}

// Causes counts the redeliveries the scenario set up, by cause.
type Causes struct {
	ShortVisibility, CrashBeforeAck, BrokerDuplicate, ProducerResend int
}

type body struct {
	Key    string `json:"idempotency_key"`
	Prompt string `json:"prompt"`
}

// Run sends the workload through a fresh queue to v and reports.
func Run(ctx context.Context, cfg Config, v Variant) (Report, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	q := newQueue(cfg.MaxReceives)
	p := NewProvider(cfg.CallTime)
	rep := Report{Variant: v.Name(), Keys: cfg.Requests}
	crash := map[string]bool{}
	var resends []string
	for i := range cfg.Requests {
		raw, _ := json.Marshal(body{Key: fmt.Sprintf("req-%04d", i), Prompt: fmt.Sprintf("summarise document %d", i)})
		id := fmt.Sprintf("msg-%04d", i)
		vis := cfg.Visibility
		if rng.Float64() < cfg.ShortVisibility {
			vis = cfg.CallTime / 4
			rep.Causes.ShortVisibility++
		}
		q.send(id, string(raw), vis)
		if rng.Float64() < cfg.BrokerDuplicate {
			q.send(id, string(raw), vis)
			rep.Causes.BrokerDuplicate++
		}
		if rng.Float64() < cfg.CrashBeforeAck {
			crash[id] = true
			rep.Causes.CrashBeforeAck++
		}
		if rng.Float64() < cfg.ProducerResend {
			resends = append(resends, string(raw))
			rep.Causes.ProducerResend++
		}
	}
	start := time.Now()
	// The producer re-sends while the first copies are being worked on.
	go func() {
		for i, raw := range resends {
			time.Sleep(cfg.CallTime / 8)
			q.send(fmt.Sprintf("resend-%04d", i), raw, cfg.Visibility)
		}
	}()

	var mu sync.Mutex
	count := func(o outcome) {
		mu.Lock()
		defer mu.Unlock()
		rep.Deliveries++
		switch o {
		case replayed:
			rep.Replays++
		case inProgress:
			rep.InProgress++
		}
	}
	crashed := map[string]bool{}
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				msgs := q.receive(cfg.Batch)
				if len(msgs) == 0 {
					mu.Lock()
					resent := len(resends) == 0 || time.Since(start) > time.Duration(len(resends)+1)*cfg.CallTime/8
					mu.Unlock()
					if resent && q.empty() {
						return
					}
					time.Sleep(time.Millisecond)
					continue
				}
				// A batch's records run concurrently, as the handler runs them.
				var batch sync.WaitGroup
				for _, m := range msgs {
					batch.Go(func() {
						var b body
						if err := json.Unmarshal([]byte(m.Body), &b); err != nil {
							return // malformed: left for the dead-letter queue
						}
						ack, o := v.Process(ctx, b.Key, b.Prompt, p)
						count(o)
						mu.Lock()
						die := ack && crash[m.ID] && !crashed[m.ID]
						if die {
							crashed[m.ID] = true
						}
						mu.Unlock()
						if ack && !die {
							q.delete(m.Receipt)
						}
					})
				}
				batch.Wait()
			}
		})
	}
	wg.Wait()
	rep.Elapsed = time.Since(start)
	dead := map[string]bool{}
	for _, m := range q.deadLetters() {
		var b body
		_ = json.Unmarshal([]byte(m.Body), &b)
		dead[b.Key] = true
	}
	rep.DeadLetters = len(q.deadLetters())
	calls := p.Calls()
	for i := range cfg.Requests {
		key := fmt.Sprintf("req-%04d", i)
		n := calls[key]
		rep.Calls += n
		if n > 1 {
			rep.DuplicateCalls += n - 1
		}
		if n == 0 && !dead[key] {
			rep.Unanswered++
		}
	}
	return rep, ctx.Err()
}
