package streams

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// provider is the costly work the function does per request: a billed
// call, counted per key, in the order the calls are billed. The plan's
// fail-first keys are refused once (not billed).
type provider struct {
	callTime time.Duration

	mu      sync.Mutex
	refuse  map[string]bool
	refused int
	killed  int // calls under way when their function died (not billed)
	calls   map[string]int
	order   []string // keys, once per billed call
}

func newProvider(p plan, callTime time.Duration) *provider {
	refuse := make(map[string]bool, len(p.failFirst))
	for k := range p.failFirst {
		refuse[k] = true
	}
	return &provider{callTime: callTime, refuse: refuse, calls: map[string]int{}}
}

// fn is the function's work for a record's message.
func (v *provider) fn(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
	var b struct {
		Key string `json:"idempotency_key"`
	}
	if err := json.Unmarshal([]byte(msg.Body), &b); err != nil || b.Key == "" {
		return nil, errors.New("streams: a record without a key")
	}
	if die(ctx) {
		v.mu.Lock()
		v.killed++
		v.mu.Unlock()
		return nil, errors.New("streams: the function died during the call")
	}
	v.mu.Lock()
	if v.refuse[b.Key] {
		delete(v.refuse, b.Key)
		v.refused++
		v.mu.Unlock()
		return nil, errors.New("streams: the provider refused the call")
	}
	v.mu.Unlock()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(v.callTime):
	}
	v.mu.Lock()
	if ctx.Err() != nil { // died while the call was under way: not billed
		v.mu.Unlock()
		return nil, ctx.Err()
	}
	v.calls[b.Key]++
	v.order = append(v.order, b.Key)
	v.mu.Unlock()
	return []byte(`{"answer":"` + b.Key + `"}`), nil
}
