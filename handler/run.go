package handler

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/idemq/idemq/idem"
)

// run settles the records in sequences, side by side: each sequence's
// records in input order, one goroutine at a time. A sequence holds every
// record that must not start before another has settled: the records of
// one message group (FIFO), and every record of a key, so that a copy of a
// key comes after its leader, in the same goroutine. No record ever waits
// for another sequence, so a record whose goroutine never comes back
// (runtime.Goexit) holds up nobody: it and the records its sequence would
// have run next keep the zero fate, which fails them.
func (b *batch) run() {
	defer b.cancel()
	for i := range b.records {
		if rec := &b.records[i]; rec.fate.decided() { // found by prepare
			b.gate.fail(i, rec.group())
		}
	}
	b.runSequences(b.sequences())
}

// sequences are the runs of records that must go in order: the records
// joined, directly or through others, by a message group (FIFO) or a key.
// On a standard queue with distinct keys every record is a sequence of its
// own. A step handler's records are joined by their message group only:
// each runs its own step, whatever its key. Sequences are ordered by their first record, and each lists its
// records' indexes in input order.
func (b *batch) sequences() [][]int {
	parent := make([]int, len(b.records))
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
			parent[max(ri, rj)] = min(ri, rj) // the root is the sequence's first record
		}
	}
	byGroup := make(map[string]int)
	byKey := make(map[idem.Key]int)
	for i := range b.records {
		rec := &b.records[i]
		if b.fifo {
			g := rec.group()
			if j, ok := byGroup[g]; ok {
				join(i, j)
			} else {
				byGroup[g] = i
			}
		}
		if b.w.step == nil && rec.key != "" && !rec.fate.decided() {
			if j, ok := byKey[rec.key]; ok {
				join(i, j)
			} else {
				byKey[rec.key] = i
			}
		}
	}
	var sequences [][]int
	index := make(map[int]int) // a sequence's first record → its place in sequences
	for i := range b.records {
		r := find(i)
		n, ok := index[r]
		if !ok {
			n = len(sequences)
			index[r] = n
			sequences = append(sequences, nil)
		}
		sequences[n] = append(sequences[n], i)
	}
	return sequences
}

// runSequences runs the sequences side by side, at most the concurrency's
// worth at once, taken in order.
func (b *batch) runSequences(sequences [][]int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(b.settings.concurrency, len(sequences)) {
		wg.Go(func() {
			for {
				n := int(next.Add(1) - 1)
				if n >= len(sequences) {
					return
				}
				b.runSequence(sequences[n])
			}
		})
	}
	wg.Wait()
}

// runSequence settles a sequence's records in order. The first record of
// a key that starts is its leader: it claims the key (or adopts a result
// from the cache or another batch); every later record of the key is a
// copy and adopts the leader's fate. A step handler's record runs its
// step instead. On a FIFO queue the gate keeps a
// record from starting after a failure of its message group, or, without
// Config.FIFOGroupIsolation, after a failure anywhere earlier in the batch
// (as far as is known yet; the response applies the gate again to every
// record).
func (b *batch) runSequence(sequence []int) {
	leaders := make(map[idem.Key]int) // key → the record that leads it
	for _, i := range sequence {
		rec := &b.records[i]
		switch {
		case rec.fate.decided(): // found by prepare
			b.traceSettled(i)
		case b.gate.blocks(i, rec.group()):
			b.assign(i, decide(attempt{stage: stageNotStarted, err: ErrFIFOBlocked}))
			b.traceSettled(i)
		case b.w.step != nil:
			b.settleRecovering(i, func() fate { return b.runStep(rec) })
		default:
			if j, ok := leaders[rec.key]; ok && !rec.keyless {
				b.settleRecovering(i, func() fate { return b.settleCopy(rec, &b.records[j]) })
				break
			}
			b.settleRecovering(i, func() fate { return b.claimAwaitingLease(rec) })
			if !rec.keyless && rec.fate.verdict != skip {
				leaders[rec.key] = i
			}
		}
		if !rec.fate.acked() {
			b.gate.fail(i, rec.group())
		}
	}
}

// settleRecovering assigns record i the fate step returns, with the
// back-off of a record found in progress, so that however step ends the
// record has a fate: a panic nobody else recovered fails it with ErrPanic,
// and a goroutine exit (runtime.Goexit) with ErrNoOutcome before the exit
// goes on. With tracing on, the record's span covers step and ends with
// the fate, however step ends.
func (b *batch) settleRecovering(i int, step func() fate) {
	rec := &b.records[i]
	var endSpan func(RecordEnd)
	if b.settings.tracer != nil {
		endSpan = b.startRecordSpan(i)
	}
	returned := false
	defer func() {
		switch p := recover(); {
		case returned:
		case p != nil:
			b.assign(i, decide(attempt{stage: stageCrashed, err: b.panicked(rec, p)}))
		default:
			b.assign(i, decide(attempt{stage: stageCrashed, err: ErrNoOutcome}))
			b.settings.logger.ErrorContext(b.ctx, "idemq: record's goroutine exited without an outcome (runtime.Goexit?); it comes back",
				"message_id", rec.msg.MessageId, "key", string(rec.key))
		}
		if endSpan != nil {
			endSpan(outcomeOf(&rec.fate))
		}
	}()
	f := b.backoff(rec, step())
	returned = true
	b.assign(i, f)
}

// panicked logs a recovered panic with its stack and returns it as an
// error.
func (b *batch) panicked(rec *record, p any) error {
	b.settings.logger.ErrorContext(b.ctx, "idemq: panic in record",
		"message_id", rec.msg.MessageId, "key", string(rec.key), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return fmt.Errorf("%w: %v", ErrPanic, p)
}
