package demo

import (
	"strconv"
	"sync"
	"time"
)

// Message is one delivery of a message, as a worker receives it.
type Message struct {
	ID      string
	Body    string
	Receipt string
	// Receives counts this message's deliveries, this one included.
	Receives int
}

// queue is an in-process at-least-once queue with SQS's semantics: a
// received message is hidden for its visibility timeout and comes back if
// it is not deleted by then; after maxReceives it goes to the dead-letter
// list.
type queue struct {
	mu          sync.Mutex
	entries     []*entry
	seq         int
	maxReceives int
	dlq         []Message
}

type entry struct {
	msg        Message
	visibility time.Duration
	visibleAt  time.Time
	deleted    bool
}

func newQueue(maxReceives int) *queue { return &queue{maxReceives: maxReceives} }

// send enqueues a message with its own visibility timeout.
func (q *queue) send(id, body string, visibility time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.entries = append(q.entries, &entry{msg: Message{ID: id, Body: body}, visibility: visibility})
}

// receive returns up to max visible messages and hides them.
func (q *queue) receive(max int) []Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	var out []Message
	for _, e := range q.entries {
		if len(out) == max {
			break
		}
		if e.deleted || now.Before(e.visibleAt) {
			continue
		}
		if e.msg.Receives >= q.maxReceives {
			e.deleted = true
			q.dlq = append(q.dlq, e.msg)
			continue
		}
		q.seq++
		e.msg.Receives++
		e.msg.Receipt = strconv.Itoa(q.seq)
		e.visibleAt = now.Add(e.visibility)
		out = append(out, e.msg)
	}
	return out
}

// delete removes the message received with receipt, if that receipt is
// still the latest.
func (q *queue) delete(receipt string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, e := range q.entries {
		if e.msg.Receipt == receipt {
			e.deleted = true
			return
		}
	}
}

// empty reports whether every message was deleted or dead-lettered.
func (q *queue) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, e := range q.entries {
		if !e.deleted {
			return false
		}
	}
	return true
}

func (q *queue) deadLetters() []Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Message(nil), q.dlq...)
}
