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

// Queue is an in-memory SQS queue, standard or FIFO (WithFIFO), fed to a
// handler by Drain: a received message is hidden for the visibility
// timeout and comes back unless it is deleted; a message received
// MaxReceives times moves to the dead-letter list at its next receive. On
// a FIFO queue the messages of a message group are received in the order
// they were sent, and none while an earlier one of its group is in flight.
// The zero value is not usable; call NewQueue.
type Queue struct {
	visibility  time.Duration
	maxReceives int
	fifo        bool

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

// WithFIFO makes the queue a FIFO queue: messages are sent to a message
// group (SendToGroup), delivered in order within it, with
// FIFOEventSourceARN. It does not deduplicate: every send is a new message,
// as when a producer re-sends with a new deduplication id, or after SQS's
// five-minute deduplication window. Defaults to a standard queue.
func WithFIFO() QueueOption { return func(q *Queue) { q.fifo = true } }

// NewQueue returns an empty queue.
func NewQueue(opts ...QueueOption) *Queue {
	q := &Queue{visibility: DefaultVisibility, maxReceives: DefaultMaxReceives}
	for _, o := range opts {
		o(q)
	}
	return q
}

// Send enqueues body under a new message id, which it returns. On a FIFO
// queue it panics: a FIFO message needs a group (SendToGroup).
func (q *Queue) Send(body string) string {
	if q.fifo {
		panic("handlertest: Send on a FIFO queue: a FIFO message needs a message group; use SendToGroup")
	}
	return q.send(Message("", body))
}

// SendToGroup enqueues body in message group group under a new message id,
// which it returns. On a standard queue the group is only an attribute (a
// fair queue's tenant), and orders nothing.
func (q *Queue) SendToGroup(group, body string) string {
	if group == "" {
		panic("handlertest: empty message group")
	}
	m := Message("", body)
	if q.fifo {
		m = FIFOMessage("", body, group)
	}
	m.Attributes[groupAttribute] = group
	return q.send(m)
}

func (q *Queue) send(m events.SQSMessage) string {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seq++
	m.MessageId = fmt.Sprintf("msg-%06d", q.seq)
	m.ReceiptHandle = m.MessageId + "#1"
	if q.fifo {
		m.Attributes["SequenceNumber"] = fmt.Sprintf("%020d", q.seq)
	}
	q.entries = append(q.entries, &entry{msg: m})
	return m.MessageId
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
	blocked := make(map[string]bool) // FIFO: groups whose next message cannot go out now
	for _, e := range q.entries {
		g, grouped := e.msg.Attributes[groupAttribute]
		grouped = grouped && q.fifo
		if e.deleted || (grouped && blocked[g]) {
			continue
		}
		if now.Before(e.visibleAt) || len(out) == max {
			if grouped {
				blocked[g] = true // in flight, or not in this batch: the group waits
			}
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
