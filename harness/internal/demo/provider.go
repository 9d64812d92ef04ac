package demo

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Provider stands in for a billed model API: every call takes a while and
// is written to its request log.
type Provider struct {
	CallTime time.Duration

	mu  sync.Mutex
	log map[string]int // key → calls
}

// NewProvider returns a provider whose calls take callTime.
func NewProvider(callTime time.Duration) *Provider {
	return &Provider{CallTime: callTime, log: make(map[string]int)}
}

// Generate records a call for key and returns its answer after CallTime.
func (p *Provider) Generate(ctx context.Context, key, prompt string) ([]byte, error) {
	p.mu.Lock()
	p.log[key]++
	n := p.log[key]
	p.mu.Unlock()
	select {
	case <-time.After(p.CallTime):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return fmt.Appendf(nil, "answer to %q (generation %d)", prompt, n), nil
}

// Calls returns the number of calls made for each key.
func (p *Provider) Calls() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.log))
	for k, v := range p.log {
		out[k] = v
	}
	return out
}
