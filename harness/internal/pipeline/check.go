package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/idem"
)

// trace is what the run saw of key, to explain a violation: the
// provider's calls for it and every worker log line that names it.
func (r *runner) trace(key string) string {
	var b strings.Builder
	for _, c := range r.provider.Log() {
		if r.keyOf[c.Key] == key {
			fmt.Fprintf(&b, "\n    call at %s from %s, answered %v", c.Received.Format("15:04:05.000"), c.Instance, c.Answered)
		}
	}
	for _, in := range r.instances {
		for line := range strings.Lines(in.Logs()) {
			if strings.Contains(line, key) {
				fmt.Fprintf(&b, "\n    %s: %s", in.name, strings.TrimSpace(line))
			}
		}
	}
	for _, p := range r.consumerProcs() {
		for line := range strings.Lines(p.Logs()) {
			if strings.Contains(line, key) {
				fmt.Fprintf(&b, "\n    %s: %s", p.Name, strings.TrimSpace(line))
			}
		}
	}
	return b.String()
}

// check asserts the guarantee on an idemq run:
//   - exactly one provider call per key, plus at most one per batch holding
//     the key whose instance died during it (the answer was lost with it);
//   - every key COMPLETED, or its message in the dead-letter queue with
//     the reason;
//   - no record IN_PROGRESS after its lease;
//   - each stored result is the answer of one of the key's calls, as the
//     worker returned it; with large answers or a result bucket, read
//     back as a duplicate's replay reads it, and every duplicate's replay
//     in the workers succeeded (checkAnswers);
//   - every message without a key in the dead-letter queue;
//   - on FIFO, per-group order (checkOrder) and re-sends under the first
//     deduplication id dropped by the queue;
//   - with back-off, what checkBackoff says;
//   - every send whose answer was lost sent again by the producer.
func (r *runner) check(ctx context.Context, rep *Report, deadKeys map[string]bool) error {
	if rep.SendRetries < rep.LostSendAnswers {
		rep.violate("the producer re-sent %d times after %d lost answers", rep.SendRetries, rep.LostSendAnswers)
	}
	records := make(map[string]idem.Record, len(r.reqs))
	rep.Records = map[string]int{}
	for _, q := range r.reqs {
		k, err := idem.ClientKey(Namespace, q.Key)
		if err != nil {
			return err
		}
		rec, ok, err := r.store.records.Get(ctx, k)
		if err != nil {
			return fmt.Errorf("pipeline: read the record of %s: %w", q.Key, err)
		}
		if ok {
			records[q.Key] = rec
			rep.Records[string(rec.Status)]++
		}
	}
	answers := map[string]loadtest.Call{} // completion id → call
	for _, c := range r.provider.Log() {
		answers[c.ID] = c
	}
	if r.cfg.Answers != (Sizes{}) || r.cfg.Blobs {
		rep.Answers = &AnswerReport{Sizes: r.cfg.Answers}
	}
	now := time.Now()
	for _, q := range r.reqs {
		k, err := idem.ClientKey(Namespace, q.Key)
		if err != nil {
			return err
		}
		n := rep.Calls[q.Key]
		switch {
		case n > 1+max(r.lostWork[q.Key], r.abandoned[q.Key])+r.notStored[q.Key]:
			rep.violate("key %s: %d provider calls, want 1 (+%d for the batches holding it whose instance died or calls whose answer the worker never took (%d, %d), +%d for results the store failed to keep)%s",
				q.Key, n, max(r.lostWork[q.Key], r.abandoned[q.Key]), r.lostWork[q.Key], r.abandoned[q.Key], r.notStored[q.Key], r.trace(q.Key))
		case n == 0 && !deadKeys[q.Key]:
			rep.violate("key %s: never called and not dead-lettered", q.Key)
		}
		rec, ok := records[q.Key]
		switch {
		case deadKeys[q.Key]:
			if ok && rec.Status == idem.StatusInProgress && rec.LeaseUntil.After(now) {
				rep.violate("key %s: dead-lettered while IN_PROGRESS with a live lease", q.Key)
			}
		case !ok:
			rep.violate("key %s: no record, and no message in the dead-letter queue", q.Key)
		case rec.Status != idem.StatusCompleted:
			rep.violate("key %s: %s at the end (lease until %s), not dead-lettered", q.Key, rec.Status, rec.LeaseUntil.Format(time.RFC3339Nano))
		case rep.Answers != nil:
			value, err := r.replayedValue(ctx, k, rec, rep.Answers)
			if err != nil {
				rep.violate("key %s: its result cannot be replayed: %v%s", q.Key, err, r.trace(q.Key))
				continue
			}
			if r.checkResult(rep, q.Key, value, answers) {
				rep.Answers.add(value)
			}
		default:
			r.checkResult(rep, q.Key, rec.Result, answers)
		}
	}
	if rep.Answers != nil {
		if err := r.checkAnswers(ctx, rep, rep.Answers); err != nil {
			return err
		}
	}
	poison := 0
	for _, d := range rep.DeadLetters {
		if d.Key == "" {
			poison++
		}
		if d.Reason == "" {
			rep.violate("dead letter %s (key %q): no reason known", d.MessageID, d.Key)
		}
	}
	if poison != r.cfg.Poison {
		rep.violate("%d messages without a key in the dead-letter queue, want %d", poison, r.cfg.Poison)
	}
	if r.cfg.FIFO {
		r.checkOrder(rep, deadKeys)
		if rep.DedupKept > 0 {
			rep.violate("%d re-sends with the first send's deduplication id were not dropped by the FIFO queue", rep.DedupKept)
		}
	}
	r.checkBackoff(rep)
	checkClasses(rep)
	return nil
}

// checkClasses asserts the function's counts add up as its metrics
// promise (the dashboard stacks them): executed = fresh + took over;
// replayed = stored replays + copies + cache hits = provider calls
// avoided.
func checkClasses(rep *Report) {
	w := rep.Worker
	if w.Executed != w.Fresh+w.TookOver {
		rep.violate("the function counted %d executed, but %d fresh + %d took over", w.Executed, w.Fresh, w.TookOver)
	}
	if parts := w.StoredReplays + w.Copies + w.CacheHits; w.Replayed != parts || w.ProviderCallsAvoided != parts {
		rep.violate("the function counted %d replayed and %d provider calls avoided, but %d stored replays + %d copies + %d cache hits",
			w.Replayed, w.ProviderCallsAvoided, w.StoredReplays, w.Copies, w.CacheHits)
	}
}

// checkOrder asserts FIFO's order: in each message group, the keys' first
// provider calls came in the order the keys were sent. Keys with a message
// in the dead-letter queue are left out: SQS lets a group go on past a
// message it dead-letters.
func (r *runner) checkOrder(rep *Report, deadKeys map[string]bool) {
	first := map[string]int{} // key → index of its first call in the provider's log
	for i, c := range r.provider.Log() {
		if k := r.keyOf[c.Key]; k != "" {
			if _, ok := first[k]; !ok {
				first[k] = i
			}
		}
	}
	last := map[string]string{} // group → the last key checked in it
	for _, q := range r.reqs {  // in the order sent
		i, called := first[q.Key]
		if deadKeys[q.Key] || !called { // never called: a violation of its own
			continue
		}
		g := r.groupOf[q.Key]
		if prev, ok := last[g]; ok && first[prev] > i {
			rep.violate("group %s: key %s was first executed before key %s, which was sent before it", g, q.Key, prev)
		}
		last[g] = q.Key
		rep.OrderChecked++
	}
}

// checkResult compares a stored result with the provider's answer it came
// from: the worker stores the completion it was given. It reports whether
// they are equal.
func (r *runner) checkResult(rep *Report, key string, stored []byte, answers map[string]loadtest.Call) bool {
	var got struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(stored, &got); err != nil {
		rep.violate("key %s: stored result is not the worker's completion JSON: %v", key, err)
		return false
	}
	c, ok := answers[got.ID]
	switch {
	case !ok:
		rep.violate("key %s: stored completion %q was never answered by the provider", key, got.ID)
	case r.keyOf[c.Key] != key:
		rep.violate("key %s: stored completion %s answered key %s", key, got.ID, r.keyOf[c.Key])
	case !c.Answered:
		rep.violate("key %s: stored completion %s was never sent", key, got.ID)
	case c.Content != got.Content:
		rep.violate("key %s: stored content %q, the provider answered %q", key, clip(got.Content), clip(c.Content))
	default:
		return true
	}
	return false
}

// clip shortens s to its first 200 bytes and its length, for a violation's
// message.
func clip(s string) string {
	if len(s) <= 200 {
		return s
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:200], len(s))
}
