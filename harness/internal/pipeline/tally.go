package pipeline

import (
	"context"
	"sort"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
)

func (r *runner) report(ctx context.Context, stats loadtest.Stats, resent int, elapsed time.Duration) (*Report, error) {
	rep := &Report{Variant: r.cfg.Variant, Keys: len(r.reqs), Poison: r.cfg.Poison, Resent: resent, Elapsed: elapsed, ESM: stats,
		FIFO: r.cfg.FIFO}
	r.mu.Lock()
	rep.SendRetries = r.sendAttempts - len(r.reqs) - resent
	r.mu.Unlock()
	rep.LostSendAnswers = r.sendProxy.Lost()
	if r.cfg.FIFO {
		rep.Groups = r.cfg.Groups
		r.mu.Lock()
		rep.DedupDropped, rep.DedupKept = r.dedupDropped, r.dedupKept
		r.mu.Unlock()
	}
	if r.sqsProxy != nil {
		rep.Backoff = r.backoffReport()
	}
	if r.naive != nil {
		rep.Calls, rep.Worker = r.naive.results()
	} else {
		rep.Calls = map[string]int{}
		for _, c := range r.provider.Log() {
			rep.Calls[r.keyOf[c.Key]]++
		}
		for _, in := range r.instances {
			rep.Worker.add(ParseWorkerLog(in.Logs()))
			rep.Restarts += in.Starts() - 1
		}
		rep.Backend, rep.Store = r.cfg.backend(), r.store.counts()
		r.mu.Lock()
		rep.CrashedCalls = len(r.crashedKeys)
		rep.Errors = r.errs
		r.mu.Unlock()
	}
	dead, err := r.queue.DeadLetters(ctx)
	if err != nil {
		return nil, err
	}
	deadKeys := map[string]bool{}
	for _, m := range dead {
		k := bodyKey(m.Body)
		deadKeys[k] = true
		rep.DeadLetters = append(rep.DeadLetters, DeadLetter{MessageID: m.MessageId, Key: k, Reason: stats.LastFailure[m.MessageId]})
	}
	sort.Slice(rep.DeadLetters, func(i, j int) bool { return rep.DeadLetters[i].MessageID < rep.DeadLetters[j].MessageID })
	if r.naive == nil {
		r.notStored = r.notStoredResults()
	}
	r.abandoned = r.abandonedCalls()
	for _, q := range r.reqs {
		n := rep.Calls[q.Key]
		rep.ProviderCalls += n
		if n > 1 {
			rep.DuplicateCalls += n - 1
			lost := min(n-1, r.lostWork[q.Key])
			abandoned := min(n-1-lost, max(0, r.abandoned[q.Key]-r.lostWork[q.Key]))
			rep.LostWorkCalls += lost
			rep.AbandonedCalls += abandoned
			rep.NotStoredCalls += min(n-1-lost-abandoned, r.notStored[q.Key])
		}
		if n == 0 && !deadKeys[q.Key] {
			rep.Unanswered++
		}
	}
	if r.naive == nil {
		if err := r.check(ctx, rep, deadKeys); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// notStoredResults counts, per key, the records the workers reported
// because the work ran but its result could not be stored: their
// "record comes back" lines of op "complete" or "offload" (the store or
// the bucket failed to keep the result after their own retries). The next
// delivery runs the work again: one provider call more per such report,
// as the simulation allows one after a refused completion.
func (r *runner) notStoredResults() map[string]int { return r.comesBack(notStored) }

// abandonedCalls are, per key, the provider's calls whose answer no
// worker took: the calls the provider never finished answering, or, if
// more, the workers' "record comes back" lines of op "run" whose call to
// the provider failed (its deadline cut the call while it read a large
// answer the provider had finished writing). Either way the work failed,
// and failed work is run again.
func (r *runner) abandonedCalls() map[string]int {
	out := r.comesBack(failedCall)
	unanswered := map[string]int{}
	for _, c := range r.provider.Log() {
		if k := r.keyOf[c.Key]; k != "" && !c.Answered {
			unanswered[k]++
		}
	}
	for k, n := range unanswered {
		out[k] = max(out[k], n)
	}
	return out
}

// comesBack counts, per key, the "idemq: record comes back" lines of
// every worker's log (the instances' and the consumer processes') whose
// op and error keep says count.
func (r *runner) comesBack(keep func(op, err string) bool) map[string]int {
	byRecordKey := make(map[string]string, len(r.reqs))
	for _, q := range r.reqs {
		byRecordKey[string(clientKey(q.Key))] = q.Key
	}
	out := map[string]int{}
	for _, in := range r.instances {
		countComesBack(in.Logs(), byRecordKey, keep, out)
	}
	for _, p := range r.consumerProcs() {
		countComesBack(p.Logs(), byRecordKey, keep, out)
	}
	return out
}
