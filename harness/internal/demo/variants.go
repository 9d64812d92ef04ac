package demo

import (
	"context"
	"sync"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// outcome is what a variant did with one delivery.
type outcome int

const (
	executed   outcome = iota // called the provider
	replayed                  // answered from the store
	inProgress                // left for a retry: another worker has the key
	failed                    // the provider or the store failed
)

// Variant processes one delivery; ack says whether the message may be
// deleted.
type Variant interface {
	Name() string
	Process(ctx context.Context, key, prompt string, p *Provider) (ack bool, o outcome)
}

// Idemq is the real thing: idem.Do with a claim before the call.
type Idemq struct {
	Store idem.Store
	Lease time.Duration
}

// Name implements Variant.
func (v *Idemq) Name() string { return "idemq (claim first)" }

// Process implements Variant.
func (v *Idemq) Process(ctx context.Context, key, prompt string, p *Provider) (bool, outcome) {
	k, err := idem.ClientKey("demo", key)
	if err != nil {
		return false, failed
	}
	r, err := idem.Do(ctx, v.Store, k, "", func(ctx context.Context) ([]byte, error) {
		return p.Generate(ctx, key, prompt)
	}, idem.WithLease(v.Lease))
	switch {
	case err != nil:
		return false, failed
	case r.Outcome == idem.Replayed:
		return true, replayed
	case r.Outcome == idem.InProgress:
		return false, inProgress
	}
	return true, executed
}

// slowMap is a key-value table whose every operation takes a round trip.
type slowMap struct {
	latency time.Duration
	mu      sync.Mutex
	m       map[string]string
}

func (s *slowMap) get(key string) (string, bool) {
	time.Sleep(s.latency)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok
}

func (s *slowMap) put(key, value string) {
	time.Sleep(s.latency)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = value
}

// MarkAfter is a naive variant kept for contrast: it checks for a "done"
// mark, calls the provider, then writes the mark. Every delivery that
// arrives during the call calls again.
type MarkAfter struct{ table *slowMap }

// NewMarkAfter returns a MarkAfter whose table takes latency per request.
func NewMarkAfter(latency time.Duration) *MarkAfter {
	return &MarkAfter{table: &slowMap{latency: latency, m: map[string]string{}}}
}

// Name implements Variant.
func (v *MarkAfter) Name() string { return "naive: mark after the call" }

// Process implements Variant.
func (v *MarkAfter) Process(ctx context.Context, key, prompt string, p *Provider) (bool, outcome) {
	if _, done := v.table.get(key); done {
		return true, replayed
	}
	if _, err := p.Generate(ctx, key, prompt); err != nil {
		return false, failed
	}
	v.table.put(key, "done")
	return true, executed
}

// ReadThenWrite is a naive variant kept for contrast: it reads the key, and
// if it is absent writes IN_PROGRESS, as two requests. Two deliveries that
// read before either writes both call.
type ReadThenWrite struct{ table *slowMap }

// NewReadThenWrite returns a ReadThenWrite whose table takes latency per
// request.
func NewReadThenWrite(latency time.Duration) *ReadThenWrite {
	return &ReadThenWrite{table: &slowMap{latency: latency, m: map[string]string{}}}
}

// Name implements Variant.
func (v *ReadThenWrite) Name() string { return "naive: read, then write" }

// Process implements Variant.
func (v *ReadThenWrite) Process(ctx context.Context, key, prompt string, p *Provider) (bool, outcome) {
	switch state, _ := v.table.get(key); state {
	case "done":
		return true, replayed
	case "busy":
		return false, inProgress
	}
	v.table.put(key, "busy")
	if _, err := p.Generate(ctx, key, prompt); err != nil {
		v.table.put(key, "")
		return false, failed
	}
	v.table.put(key, "done")
	return true, executed
}

// SlowStore adds a round trip's latency to every request to an idem.Store,
// as a network store has.
type SlowStore struct {
	idem.Store
	Latency time.Duration
}

func (s SlowStore) wait() { time.Sleep(s.Latency) }

// Claim implements idem.Store.
func (s SlowStore) Claim(ctx context.Context, r idem.ClaimRequest) (idem.Claim, error) {
	s.wait()
	return s.Store.Claim(ctx, r)
}

// Complete implements idem.Store.
func (s SlowStore) Complete(ctx context.Context, c idem.Completion) error {
	s.wait()
	return s.Store.Complete(ctx, c)
}

// Release implements idem.Store.
func (s SlowStore) Release(ctx context.Context, k idem.Key, owner string) error {
	s.wait()
	return s.Store.Release(ctx, k, owner)
}

// Extend implements idem.Store.
func (s SlowStore) Extend(ctx context.Context, e idem.Extension) error {
	s.wait()
	return s.Store.Extend(ctx, e)
}

// NewIdemq returns the idemq variant on an in-memory store with latency.
func NewIdemq(latency, lease time.Duration) *Idemq {
	store, err := memstore.New()
	if err != nil {
		panic(err) // no options: memstore.New cannot fail
	}
	return &Idemq{Store: SlowStore{Store: store, Latency: latency}, Lease: lease}
}
