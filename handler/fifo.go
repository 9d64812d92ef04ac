package handler

import (
	"strings"
	"sync"
)

// groupAttribute is the SQS system attribute naming a FIFO message's
// group.
const groupAttribute = "MessageGroupId"

// isFIFO reports whether an event source ARN names a FIFO queue.
func isFIFO(arn string) bool { return strings.HasSuffix(arn, ".fifo") }

// runFIFO runs each message group's records in input order, groups side by
// side (at most the concurrency's worth of records at once). After a
// failure, by default no later record of the batch starts; with
// WithFIFOGroupIsolation, no later record of the failed record's group.
func (b *batch) runFIFO() {
	b.sem = make(chan struct{}, b.w.o.concurrency)
	b.firstFailure.Store(int64(len(b.slots)))
	var order []string
	groups := make(map[string][]int)
	for i := range b.slots {
		g := b.slots[i].msg.Attributes[groupAttribute]
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], i)
		if b.slots[i].out.kind.failure() {
			b.noteFailure(i) // found by prepare: later records need not start
		}
	}
	var wg sync.WaitGroup
	for _, g := range order {
		wg.Go(func() {
			groupFailed := false
			for _, i := range groups[g] {
				s := &b.slots[i]
				if groupFailed || (!b.w.o.fifoGroupOnly && b.firstFailure.Load() < int64(i)) {
					s.out = b.failure(i, skipped, "run", ErrFIFOBlocked)
					close(s.done)
					continue
				}
				b.process(i)
				if s.out.kind.failure() {
					groupFailed = true
					b.noteFailure(i)
				}
			}
		})
	}
	wg.Wait()
}

// noteFailure lowers the batch's first failed index to i.
func (b *batch) noteFailure(i int) {
	for {
		cur := b.firstFailure.Load()
		if int64(i) >= cur || b.firstFailure.CompareAndSwap(cur, int64(i)) {
			return
		}
	}
}

// blockAfterFailures reports as failures the records after a failure that
// ran anyway (in another group, while the failure was under way), so no
// record after a failed one is acknowledged: in the batch by default, in
// the failed record's group with WithFIFOGroupIsolation. Their results are
// stored, so their redelivery replays them.
func (b *batch) blockAfterFailures() {
	failedGroups := make(map[string]bool)
	batchFailed := false
	for i := range b.slots {
		s := &b.slots[i]
		g := s.msg.Attributes[groupAttribute]
		if s.out.kind.failure() {
			batchFailed, failedGroups[g] = true, true
			continue
		}
		if failedGroups[g] || (batchFailed && !b.w.o.fifoGroupOnly) {
			s.blocked = true
			s.out.err = recordError("run", s.key, s.msg.MessageId, ErrFIFOBlocked)
		}
	}
}
