package handlertest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Defaults of a Queue.
const (
	// DefaultVisibility is a Queue's visibility timeout: short, so tests
	// see redeliveries quickly.
	DefaultVisibility = time.Second
	// DefaultMaxReceives is how often a Queue delivers a message before it
	// moves it to its dead-letter list, SQS's recommended minimum.
	DefaultMaxReceives = 5
)

// Queue is an in-memory standard queue with SQS's semantics, fed to a
// handler by Drain: a received message is hidden for the
// visibility timeout and comes back unless it is deleted; a message
// received MaxReceives times moves to the dead-letter list at its next
// receive. The zero value is not usable; call NewQueue.
type Queue struct {
	visibility  time.Duration
	maxReceives int

	mu      sync.Mutex
	seq     int
	entries []*entry
	dead    []events.SQSMessage
}

type entry struct {
	msg       events.SQSMessage
	receives  int
	visibleAt time.Time
	deleted   bool
}

// QueueOption configures NewQueue.
type QueueOption func(*Queue)

// WithVisibility sets the visibility timeout. Defaults to
// DefaultVisibility.
func WithVisibility(d time.Duration) QueueOption {
	if d <= 0 {
		panic("handlertest: visibility must be positive")
	}
	return func(q *Queue) { q.visibility = d }
}

// WithMaxReceives sets how often a message is delivered before it is
// dead-lettered. Defaults to DefaultMaxReceives.
func WithMaxReceives(n int) QueueOption {
	if n < 1 {
		panic("handlertest: max receives must be at least 1")
	}
	return func(q *Queue) { q.maxReceives = n }
}

// NewQueue returns an empty queue.
func NewQueue(opts ...QueueOption) *Queue {
	q := &Queue{visibility: DefaultVisibility, maxReceives: DefaultMaxReceives}
	for _, o := range opts {
		o(q)
	}
	return q
}

// Send enqueues body under a new message id, which it returns.
func (q *Queue) Send(body string) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seq++
	id := fmt.Sprintf("msg-%06d", q.seq)
	m := Message(id, body)
	q.entries = append(q.entries, &entry{msg: m})
	return id
}

// Receive returns up to max visible messages, waiting up to wait for one.
func (q *Queue) Receive(ctx context.Context, max int, wait time.Duration) ([]events.SQSMessage, error) {
	deadline := time.Now().Add(wait)
	for {
		if msgs := q.take(max); len(msgs) > 0 {
			return msgs, nil
		}
		if !time.Now().Before(deadline) {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(min(5*time.Millisecond, time.Until(deadline))):
		}
	}
}

func (q *Queue) take(max int) []events.SQSMessage {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	var out []events.SQSMessage
	for _, e := range q.entries {
		if len(out) == max {
			break
		}
		if e.deleted || now.Before(e.visibleAt) {
			continue
		}
		if e.receives >= q.maxReceives {
			e.deleted = true
			q.dead = append(q.dead, e.msg)
			continue
		}
		e.receives++
		e.visibleAt = now.Add(q.visibility)
		m := clone(e.msg)
		m.Attributes["ApproximateReceiveCount"] = strconv.Itoa(e.receives)
		m.ReceiptHandle = fmt.Sprintf("%s#%d", m.MessageId, e.receives)
		out = append(out, m)
	}
	return out
}

// Delete deletes messages. A message is deleted by any of its receipt
// handles, as SQS mostly does.
func (q *Queue) Delete(_ context.Context, msgs []events.SQSMessage) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	ids := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		ids[m.MessageId] = true
	}
	for _, e := range q.entries {
		if ids[e.msg.MessageId] {
			e.deleted = true
		}
	}
	return nil
}

// Pending is the number of messages not deleted (visible, in flight or
// waiting to be dead-lettered).
func (q *Queue) Pending(context.Context) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, e := range q.entries {
		if !e.deleted {
			n++
		}
	}
	return n, nil
}

// DeadLetters returns the messages moved to the dead-letter list, in the
// order they were moved.
func (q *Queue) DeadLetters() []events.SQSMessage {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]events.SQSMessage(nil), q.dead...)
}
