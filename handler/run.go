package handler

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/idemq/idemq/idem"
)

// groupAttribute is the SQS system attribute naming a FIFO message's
// group.
const groupAttribute = "MessageGroupId"

// isFIFO reports whether an event source ARN names a FIFO queue.
func isFIFO(arn string) bool { return strings.HasSuffix(arn, ".fifo") }

// run settles the records in lanes, side by side: each lane's records in
// input order, one goroutine at a time. A lane holds every record that
// must not start before another has settled: the records of one message
// group (FIFO), and every record of a key, so that a copy of a key comes
// after the record that claims it, in the same goroutine. No record ever
// waits for another lane, so a record whose goroutine never comes back
// (runtime.Goexit) holds up nobody: it and the records its lane would have
// run next keep the zero result, which fails them.
func (b *batch) run() {
	defer b.cancel()
	var firstFailure atomic.Int64 // FIFO: lowest failed index so far
	firstFailure.Store(int64(len(b.slots)))
	for i := range b.slots {
		if b.slots[i].res.settled() { // found by prepare
			noteFailure(&firstFailure, i)
			break
		}
	}
	b.runLanes(b.lanes(), &firstFailure)
}

// lanes are the runs of records that must go in order: the records joined,
// directly or through others, by a message group (FIFO) or a key. On a
// standard queue with distinct keys every record is a lane of its own.
// Lanes are ordered by their first record, and each lists its records in
// input order.
func (b *batch) lanes() [][]int {
	parent := make([]int, len(b.slots))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	join := func(i, j int) {
		ri, rj := find(i), find(j)
		if ri != rj {
			parent[max(ri, rj)] = min(ri, rj) // the root is the lane's first record
		}
	}
	byGroup := make(map[string]int)
	byKey := make(map[idem.Key]int)
	for i := range b.slots {
		s := &b.slots[i]
		if b.fifo {
			g := s.msg.Attributes[groupAttribute]
			if j, ok := byGroup[g]; ok {
				join(i, j)
			} else {
				byGroup[g] = i
			}
		}
		if s.key != "" && !s.res.settled() {
			if j, ok := byKey[s.key]; ok {
				join(i, j)
			} else {
				byKey[s.key] = i
			}
		}
	}
	var lanes [][]int
	index := make(map[int]int)
	for i := range b.slots {
		r := find(i)
		n, ok := index[r]
		if !ok {
			n = len(lanes)
			index[r] = n
			lanes = append(lanes, nil)
		}
		lanes[n] = append(lanes[n], i)
	}
	return lanes
}

// runLanes runs the lanes side by side, at most the concurrency's worth
// at once, taken in order.
func (b *batch) runLanes(lanes [][]int, firstFailure *atomic.Int64) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(b.o.concurrency, len(lanes)) {
		wg.Go(func() {
			for {
				n := int(next.Add(1) - 1)
				if n >= len(lanes) {
					return
				}
				b.runLane(lanes[n], firstFailure)
			}
		})
	}
	wg.Wait()
}

// runLane settles a lane's records in order. The first record of a key
// that starts claims it; every later record of the key takes that one's
// result. On a FIFO queue a record is not started after a failure of its
// message group, nor, without WithFIFOGroupIsolation, after a failure
// anywhere earlier in the batch (as far as this lane knows yet; the
// response reports every record after the first failure).
func (b *batch) runLane(lane []int, firstFailure *atomic.Int64) {
	failedGroups := make(map[string]bool)
	claimedBy := make(map[idem.Key]int) // key → the record that claimed it
	for _, i := range lane {
		s := &b.slots[i]
		g := s.msg.Attributes[groupAttribute]
		switch {
		case s.res.settled(): // found by prepare
		case b.fifo && (failedGroups[g] || (!b.o.fifoGroupOnly && firstFailure.Load() < int64(i))):
			s.res = failed("run", ErrFIFOBlocked)
		default:
			if j, ok := claimedBy[s.key]; ok && !s.keyless {
				b.guard(i, func(i int) { b.follow(i, j) })
				break
			}
			b.guard(i, b.settle)
			if !s.keyless && !errors.Is(s.res.err, ErrDeadline) {
				claimedBy[s.key] = i
			}
		}
		if !s.res.acked() {
			failedGroups[g] = true
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
