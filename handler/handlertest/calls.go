package handlertest

import (
	"context"
	"encoding/json"
	"maps"
	"sync"

	"github.com/aws/aws-lambda-go/events"
)

// Calls counts the calls of the expensive work (a billed model call, an
// email) per request, which is the number a test of an idempotent handler
// asserts on: one per request, however often its message came. The zero
// value is ready to use.
type Calls struct {
	mu    sync.Mutex
	count map[string]int
	order []string
}

// Func returns a function for handler.New that counts a call for the
// request key(msg) names, then runs work (nil: returns the key).
func (c *Calls) Func(key func(events.SQSMessage) string, work func(ctx context.Context, msg events.SQSMessage) ([]byte, error)) func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
	return func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		k := key(msg)
		c.add(k)
		if work == nil {
			return []byte(k), nil
		}
		return work(ctx, msg)
	}
}

// TypedFunc is Calls.Func for handler.NewTyped and handler.NewTyped: it
// returns a function that counts a call of c for the request key(req)
// names, then runs work (nil: returns Resp's zero value).
//
//	var calls handlertest.Calls
//	h, err := handler.NewTyped(store, handlertest.TypedFunc(&calls, Order.Key, placeOrder))
//	...
//	calls.Count("order-7") // 1, however often its message came
func TypedFunc[Req, Resp any](c *Calls, key func(Req) string, work func(ctx context.Context, req Req) (Resp, error)) func(ctx context.Context, req Req) (Resp, error) {
	return func(ctx context.Context, req Req) (Resp, error) {
		c.add(key(req))
		if work == nil {
			var zero Resp
			return zero, nil
		}
		return work(ctx, req)
	}
}

// add counts a call for the request k.
func (c *Calls) add(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.count == nil {
		c.count = make(map[string]int)
	}
	c.count[k]++
	c.order = append(c.order, k)
}

// Count is how many times the work ran for a request.
func (c *Calls) Count(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count[key]
}

// Order returns the requests in the order their calls started, a request
// once per call: what a FIFO test asserts on.
func (c *Calls) Order() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.order...)
}

// Total is how many times the work ran.
func (c *Calls) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.count {
		n += v
	}
	return n
}

// Repeated returns the requests the work ran more than once for, with
// their counts; empty when every request ran at most once.
func (c *Calls) Repeated() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := maps.Clone(c.count)
	maps.DeleteFunc(out, func(_ string, n int) bool { return n < 2 })
	return out
}

// BodyField returns a key function for Calls.Func that reads a top-level
// string member of the JSON body ("" when it is absent or not a string),
// such as the producer's "idempotency_key".
func BodyField(field string) func(events.SQSMessage) string {
	return func(msg events.SQSMessage) string {
		var body map[string]any
		_ = json.Unmarshal([]byte(msg.Body), &body)
		s, _ := body[field].(string)
		return s
	}
}
