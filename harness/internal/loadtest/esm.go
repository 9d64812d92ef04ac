package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/queue"
)

// Defaults of an ESM.
const (
	// DefaultTimeout is the function timeout the ESM gives each invocation.
	DefaultTimeout = 30 * time.Second
	// DefaultPollWait is how long one receive waits for a first message.
	DefaultPollWait = 100 * time.Millisecond
)

// ESM reproduces Lambda's SQS event source mapping with
// ReportBatchItemFailures: one poller per instance receives a batch (up to
// BatchSize messages, gathered for up to BatchingWindow), invokes its
// instance, deletes the messages the response does not list, and leaves
// the listed ones to come back after their visibility timeout. An
// invocation that returns an error, overruns Timeout, or answers with an
// empty or unknown item identifier fails the whole batch: nothing is
// deleted. The instances run side by side; each takes one batch at a
// time, as a Lambda execution environment does.
//
// On a FIFO queue the order comes from the queue: SQS (and fauxqs) hands
// out a message group's next message only when none of the group is in
// flight, so a group is in one batch at a time and its messages come in
// order; a batch keeps the order they were received in. fauxqs hands out
// one message per group per receive, so its batches hold one message of
// each group they touch. A message whose visibility timeout ends while its
// batch still runs is handed out again, as SQS does (fault
// ShortVisibility). Set no BatchingWindow for FIFO: Lambda has none.
//
// Faults CrashBeforeAck and BrokerDuplicate are applied here (the broker's
// duplicate only to standard queues' messages: a FIFO message, one with a
// MessageGroupId, is delivered once); the others are applied by the parts
// they concern (see Fault).
type ESM struct {
	// Source is the queue polled. Required.
	Source Source
	// Instances are the function's instances, one poller each. Required.
	Instances []Invoker
	// BatchSize is the largest batch. Defaults to queue.DefaultBatchSize,
	// Lambda's default batch size for SQS.
	BatchSize int
	// BatchingWindow is how long a poller keeps receiving to fill a batch.
	// Defaults to 0: a batch is what one receive returns.
	BatchingWindow time.Duration
	// PollWait is how long one receive waits for a first message. Defaults
	// to DefaultPollWait.
	PollWait time.Duration
	// Timeout is the function timeout: each invocation's context ends
	// then, and an invocation that returns later failed. Defaults to
	// DefaultTimeout.
	Timeout time.Duration
	// Faults picks the messages CrashBeforeAck and BrokerDuplicate hit.
	// Defaults to none.
	Faults Faults
	// Key returns a message's idempotency key, to tell a producer's
	// re-send from a new request in Stats. Defaults to the body's
	// "idempotency_key" field.
	Key func(events.SQSMessage) string
	// OnInvocation, if set, is called after each invocation, from the
	// instance's poller.
	OnInvocation func(Invocation)
}

// Invocation is one batch given to one instance, and what came of it.
type Invocation struct {
	Instance int
	Event    events.SQSEvent
	Causes   []Cause // per record
	Response events.SQSEventResponse
	// Failure says why the whole batch failed ("" if it did not): "error",
	// "timeout", "malformed response" or "crash".
	Failure string
	Err     error
	// Deleted is how many of the batch's messages were acknowledged.
	Deleted int
}

// Run polls until done reports true and the queue is drained (nothing
// visible, in flight or waiting to be duplicated), then returns what it
// did. done is the producer saying it has sent everything; nil means it
// has. Run returns early with ctx's error if ctx ends.
func (e *ESM) Run(ctx context.Context, done func() bool) (Stats, error) {
	if e.Source == nil || len(e.Instances) == 0 {
		panic("handlertest: ESM needs a Source and at least one instance")
	}
	r := &run{esm: e, t: newTracker(), done: done}
	r.setDefaults()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for i, inv := range e.Instances {
		wg.Go(func() {
			if err := r.poll(ctx, i, inv); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	stats := r.t.snapshot()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, errDrained) {
		return stats, err
	}
	return stats, nil
}

var errDrained = errors.New("handlertest: queue drained")

// run is one Run's state.
type run struct {
	esm    *ESM
	t      *tracker
	done   func() bool
	size   int
	wait   time.Duration
	limit  time.Duration
	keyOf  func(events.SQSMessage) string
	mu     sync.Mutex
	copies []events.SQSMessage // broker duplicates waiting for a poller
	// holding counts the copies a poller has taken and not yet delivered:
	// a copy is always waiting, held or in flight, so drained cannot miss
	// it between two looks.
	holding int
}

func (r *run) setDefaults() {
	e := r.esm
	r.size, r.wait, r.limit, r.keyOf = e.BatchSize, e.PollWait, e.Timeout, e.Key
	if r.size <= 0 {
		r.size = queue.DefaultBatchSize
	}
	if r.wait <= 0 {
		r.wait = DefaultPollWait
	}
	if r.limit <= 0 {
		r.limit = DefaultTimeout
	}
	if r.keyOf == nil {
		r.keyOf = bodyKey
	}
	if r.done == nil {
		r.done = func() bool { return true }
	}
}

func bodyKey(m events.SQSMessage) string {
	var b struct {
		Key json.RawMessage `json:"idempotency_key"`
	}
	if json.Unmarshal([]byte(m.Body), &b) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(b.Key, &s) == nil {
		return s
	}
	return string(b.Key)
}

// poll is one instance's poller.
func (r *run) poll(ctx context.Context, i int, inv Invoker) error {
	for ctx.Err() == nil {
		batch, copies, err := r.gather(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("handlertest: receive: %w", err)
		}
		if len(batch) == 0 {
			drained, err := r.drained(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("handlertest: queue depth: %w", err)
			}
			if drained {
				return errDrained
			}
			continue
		}
		if err := r.invoke(ctx, i, inv, batch, copies); err != nil {
			return err
		}
	}
	return nil
}

// gather takes waiting duplicates first, then receives up to the batch
// size, for up to the batching window.
func (r *run) gather(ctx context.Context) (batch []events.SQSMessage, copies int, err error) {
	r.mu.Lock()
	n := min(len(r.copies), r.size)
	batch = append(batch, r.copies[:n]...)
	r.copies = r.copies[n:]
	r.holding += n
	r.mu.Unlock()
	copies = n
	window := time.Now().Add(r.esm.BatchingWindow)
	for len(batch) < r.size {
		msgs, err := r.esm.Source.Receive(ctx, r.size-len(batch), r.wait)
		if err != nil {
			return batch, copies, err
		}
		batch = append(batch, msgs...)
		if r.esm.BatchingWindow <= 0 || !time.Now().Before(window) {
			break
		}
	}
	return batch, copies, nil
}

// drained reports whether there is nothing left to do.
func (r *run) drained(ctx context.Context) (bool, error) {
	if !r.done() || !r.idle() {
		return false, nil
	}
	n, err := r.esm.Source.Pending(ctx)
	if err != nil || n > 0 {
		return false, err
	}
	// Again: a message may have left the queue for a poller, been deleted
	// and left a duplicate behind since the first look.
	return r.idle(), nil
}

// idle reports whether no duplicate is waiting or held and no delivery is
// in flight, at one moment.
func (r *run) idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.copies)+r.holding == 0 && !r.t.busy()
}

// invoke runs one batch on one instance and acknowledges what succeeded.
// The first copies records are broker duplicates.
func (r *run) invoke(ctx context.Context, i int, inv Invoker, batch []events.SQSMessage, copies int) error {
	f := r.esm.Faults
	call := Invocation{Instance: i, Event: handlertest.Event(batch...), Causes: make([]Cause, len(batch))}
	seqs := make([]int, len(batch))
	crash := false
	for j, m := range batch {
		isCopy := j < copies
		call.Causes[j], seqs[j] = r.t.deliver(m.MessageId, r.keyOf(m), isCopy)
		if isCopy {
			continue
		}
		if f.Picks(CrashBeforeAck, m.MessageId) && r.t.once(r.t.crashed, m.MessageId) {
			crash = true
		}
		if duplicates(f, m) && !late(f, m.MessageId) && r.t.once(r.t.copied, m.MessageId) {
			r.addCopy(m) // at once: another instance gets it while this one works
		}
	}
	r.mu.Lock()
	r.holding -= copies // delivered: in flight now
	r.mu.Unlock()

	ictx, cancel := context.WithTimeout(ctx, r.limit)
	start := time.Now()
	resp, err := inv.Invoke(ictx, call.Event)
	cancel()
	call.Response, call.Err = resp, err
	var failed map[string]bool
	switch {
	case ctx.Err() != nil:
		return nil // stopping: leave the batch to its visibility timeout
	case time.Since(start) > r.limit:
		call.Failure = "timeout"
	case errors.Is(err, ErrCrashed):
		call.Failure = "crash"
	case err != nil:
		call.Failure = "error"
	case crash:
		call.Failure = "crash"
		if k, ok := inv.(Killer); ok {
			if err := k.Kill(ctx); err != nil {
				return fmt.Errorf("handlertest: restart instance %d after its crash: %w", i, err)
			}
		}
	default:
		failed, call.Err = handlertest.Failures(call.Event, resp)
		if call.Err != nil {
			call.Failure = "malformed response"
		}
	}
	if err := r.ack(ctx, &call, seqs, failed, copies); err != nil {
		return err
	}
	if r.esm.OnInvocation != nil {
		r.esm.OnInvocation(call)
	}
	return nil
}

// ack deletes what succeeded and settles every record's delivery (seqs:
// the deliveries' numbers).
func (r *run) ack(ctx context.Context, call *Invocation, seqs []int, failed map[string]bool, copies int) error {
	var del []events.SQSMessage
	if call.Failure == "" {
		for _, m := range call.Event.Records {
			if !failed[m.MessageId] {
				del = append(del, m)
			}
		}
		if len(del) > 0 {
			if err := r.esm.Source.Delete(ctx, del); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("handlertest: delete: %w", err)
			}
		}
	}
	call.Deleted = len(del)
	r.t.add(func(s *Stats) {
		s.Invocations++
		s.ItemFailures += len(failed)
		if call.Failure != "" {
			s.BatchFailures[call.Failure]++
		}
	})
	for j, m := range call.Event.Records {
		isCopy, seq := j < copies, seqs[j]
		switch {
		case call.Failure == "crash":
			r.t.settle(m.MessageId, seq, isCopy, false, CauseCrash, "crash before the ack")
		case call.Failure != "":
			r.t.settle(m.MessageId, seq, isCopy, false, CauseBatchFailure, call.Failure)
		case failed[m.MessageId]:
			r.t.settle(m.MessageId, seq, isCopy, false, CauseRetry, "batch item failure")
		default:
			if !isCopy && duplicates(r.esm.Faults, m) && late(r.esm.Faults, m.MessageId) && r.t.once(r.t.copied, m.MessageId) {
				r.addCopy(m) // after the delete: the broker hands it out again (added before it settles, for drained)
			}
			r.t.settle(m.MessageId, seq, isCopy, true, "", "")
		}
	}
	return nil
}

// duplicates reports whether fault BrokerDuplicate hits m. A FIFO
// queue's message (one with a MessageGroupId) is never duplicated: FIFO
// queues deliver each message once.
func duplicates(f Faults, m events.SQSMessage) bool {
	return m.Attributes[groupAttribute] == "" && f.Picks(BrokerDuplicate, m.MessageId)
}

// groupAttribute is the system attribute naming a FIFO message's group.
const groupAttribute = "MessageGroupId"

// late reports whether a broker duplicate of id comes after the original
// was deleted rather than at the same time: half of them do.
func late(f Faults, id string) bool { return unit(f.Seed, "late", id) < 0.5 }

func (r *run) addCopy(m events.SQSMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.copies = append(r.copies, handlertest.Duplicate(m))
}
