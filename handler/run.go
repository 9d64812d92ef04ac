package handler

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
)

// groupAttribute is the SQS system attribute naming a FIFO message's
// group.
const groupAttribute = "MessageGroupId"

// isFIFO reports whether an event source ARN names a FIFO queue.
func isFIFO(arn string) bool { return strings.HasSuffix(arn, ".fifo") }

// run settles the records in two rounds, each over the same lanes: first
// every record that claims a key (or runs keyless), then every copy of an
// earlier record's key, from that record's result. No record ever waits for
// another, so a record whose goroutine never comes back (runtime.Goexit)
// holds up nobody: it and the records its goroutine would have run next
// keep the zero result, which fails them.
func (b *batch) run() {
	defer b.cancel()
	lanes := b.lanes()
	var firstFailure atomic.Int64 // FIFO: lowest failed index so far
	firstFailure.Store(int64(len(b.slots)))
	for i := range b.slots {
		if b.slots[i].res.settled() { // found by prepare
			noteFailure(&firstFailure, i)
			break
		}
	}
	leads := func(i int) bool { return b.slots[i].leader == i && !b.slots[i].res.settled() }
	copies := func(i int) bool { return b.slots[i].leader != i }
	b.runLanes(lanes, &firstFailure, leads, b.settle)
	b.runLanes(lanes, &firstFailure, copies, b.follow)
}

// lanes are the runs of records that must go in order: one lane per
// message group on a FIFO queue, one per record on a standard queue.
func (b *batch) lanes() [][]int {
	if !b.fifo {
		lanes := make([][]int, len(b.slots))
		for i := range lanes {
			lanes[i] = []int{i}
		}
		return lanes
	}
	var lanes [][]int
	index := make(map[string]int)
	for i := range b.slots {
		g := b.slots[i].msg.Attributes[groupAttribute]
		n, ok := index[g]
		if !ok {
			n = len(lanes)
			index[g] = n
			lanes = append(lanes, nil)
		}
		lanes[n] = append(lanes[n], i)
	}
	return lanes
}

// runLanes runs step for each record of lanes that take selects, lanes side
// by side (at most the concurrency's worth at once, taken in order), each
// lane's records in order. On a FIFO queue a record is not started after a
// failure: of its lane with WithFIFOGroupIsolation, of the batch
// otherwise.
func (b *batch) runLanes(lanes [][]int, firstFailure *atomic.Int64, take func(int) bool, step func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(b.o.concurrency, len(lanes)) {
		wg.Go(func() {
			for {
				n := int(next.Add(1) - 1)
				if n >= len(lanes) {
					return
				}
				b.runLane(lanes[n], firstFailure, take, step)
			}
		})
	}
	wg.Wait()
}

func (b *batch) runLane(lane []int, firstFailure *atomic.Int64, take func(int) bool, step func(int)) {
	laneFailed := false
	for _, i := range lane {
		s := &b.slots[i]
		if !take(i) {
			// Settled in the other round, or waiting for this one's end.
			laneFailed = laneFailed || (s.res.settled() && !s.res.acked())
			continue
		}
		if b.fifo && (laneFailed || (!b.o.fifoGroupOnly && firstFailure.Load() < int64(i))) {
			s.res = failed("run", ErrFIFOBlocked)
		} else {
			b.guard(i, step)
		}
		if !s.res.acked() {
			laneFailed = true
			noteFailure(firstFailure, i)
		}
	}
}

// noteFailure lowers the first failed index to i.
func noteFailure(first *atomic.Int64, i int) {
	for {
		cur := first.Load()
		if int64(i) >= cur || first.CompareAndSwap(cur, int64(i)) {
			return
		}
	}
}

// guard runs step for record i, so that however step ends the record has
// a result: a panic nobody else recovered fails it with ErrPanic, and a
// goroutine exit (runtime.Goexit) with ErrNoOutcome before the exit goes
// on.
func (b *batch) guard(i int, step func(int)) {
	returned := false
	defer func() {
		if returned {
			return
		}
		s := &b.slots[i]
		if p := recover(); p != nil {
			s.res = failed("run", b.panicked(s, p))
			return
		}
		s.res = failed("run", ErrNoOutcome)
		b.o.logger.ErrorContext(b.ctx, "idemq: record's goroutine exited without an outcome (runtime.Goexit?); it comes back",
			"message_id", s.msg.MessageId, "key", string(s.key))
	}()
	step(i)
	returned = true
}

// panicked logs a recovered panic with its stack and returns it as an
// error.
func (b *batch) panicked(s *slot, p any) error {
	b.o.logger.ErrorContext(b.ctx, "idemq: panic in record",
		"message_id", s.msg.MessageId, "key", string(s.key), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return fmt.Errorf("%w: %v", ErrPanic, p)
}
