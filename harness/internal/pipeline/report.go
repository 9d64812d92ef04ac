package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/idem"
)

// Report is what one run did, and what it broke.
type Report struct {
	Variant Variant
	Keys    int
	Poison  int
	Resent  int
	// SendRetries are the producer's re-sends (package producer's) of a
	// message whose answer was lost, and LostSendAnswers the answers the
	// send proxy cut after the queue took the message (fault
	// ProducerLostAnswer): each must have been re-sent.
	SendRetries, LostSendAnswers int
	Elapsed                      time.Duration
	ESM                          loadtest.Stats
	Worker                       WorkerCounts   // executed, replayed, in progress, took over ... as the function counted
	Calls                        map[string]int // provider calls per key
	Restarts                     int            // instances started again after a crash
	// Errors are the first few errors invocations failed with.
	Errors []string
	// CrashedCalls counts the calls an instance was killed in (fault
	// CrashDuringCall).
	CrashedCalls int
	Backend      Backend        // the store of the records (idemq)
	Store        map[string]int // store requests per operation and fault (idemq)

	ProviderCalls  int
	DuplicateCalls int // calls beyond the first per key
	// LostWorkCalls are duplicate calls of keys whose instance died during
	// their batch: the first answer was lost with the instance, and a
	// take-over paid again. Up to one per such batch, they are not
	// violations.
	LostWorkCalls int
	// NotStoredCalls are duplicate calls of keys whose result a worker
	// computed but could not store (the store failed the completion,
	// after its retries): the next delivery runs the work again.
	NotStoredCalls int
	// AbandonedCalls are duplicate calls of keys whose earlier call the
	// provider made but whose answer the worker never took: it gave up
	// first (its deadline cut the call, a loaded machine slowed the
	// answer), so the work failed and the key was freed for a retry.
	// Up to one per such call, beyond those an instance's death
	// explains, they are not violations.
	AbandonedCalls int
	Unanswered     int // keys never called and not dead-lettered
	DeadLetters    []DeadLetter
	Records        map[string]int // records by status at the end (idemq)

	// FIFO runs: the message groups, the producer's re-sends with the
	// first send's deduplication id that the queue dropped (and kept: each
	// one a violation), and the keys whose first execution's place in
	// their group was checked.
	FIFO                    bool
	Groups                  int
	DedupDropped, DedupKept int
	OrderChecked            int
	// Backoff is what the workers' in-progress back-off did; nil when off.
	Backoff *BackoffReport
	// Consumer is what the consumer processes did; nil for other variants.
	Consumer *ConsumerReport
	// Answers is what a run with large answers (Config.Answers) or a
	// result bucket stored and read back; nil otherwise.
	Answers *AnswerReport

	// Violations lists every broken guarantee; empty for a correct run.
	Violations []string
}

// DeadLetter is a message that ended in the dead-letter queue.
type DeadLetter struct {
	MessageID string
	Key       string // "" for a message without a key
	Reason    string // why its last delivery failed
}

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

// OK reports whether the run kept every guarantee.
func (rep *Report) OK() bool { return len(rep.Violations) == 0 }

func (rep *Report) violate(format string, args ...any) {
	rep.Violations = append(rep.Violations, fmt.Sprintf(format, args...))
}

// notStoredResults counts, per key, the records the workers reported
// because the work ran but its result could not be stored: their
// "record comes back" lines of op "complete" or "offload" (the store or
// the bucket failed to keep the result after their own retries). The next
// delivery runs the work again: one provider call more per such report,
// as the simulation allows one after a refused completion.
func (r *runner) notStoredResults() map[string]int { return r.comesBack(notStored) }

// notStored keeps a "record comes back" line whose result was not kept.
func notStored(op, _ string) bool {
	return op == string(idem.OpComplete) || op == string(idem.OpOffload)
}

// failedCall keeps a "record comes back" line whose call to the provider
// failed.
func failedCall(op, err string) bool {
	return op == string(idem.OpRun) && strings.Contains(err, "provider: ")
}

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

// countComesBack adds to out, per key (byRecordKey maps a record's key to
// it), the "idemq: record comes back" lines of logs whose op and error
// keep says count.
func countComesBack(logs string, byRecordKey map[string]string, keep func(op, err string) bool, out map[string]int) {
	for line := range strings.Lines(logs) {
		if !strings.Contains(line, `"idemq: record comes back"`) {
			continue
		}
		var l struct {
			Key string `json:"key"`
			Op  string `json:"op"`
			Err string `json:"err"`
		}
		if json.Unmarshal([]byte(line), &l) != nil || !keep(l.Op, l.Err) {
			continue
		}
		if k, ok := byRecordKey[l.Key]; ok {
			out[k]++
		}
	}
}
