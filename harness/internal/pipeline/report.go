package pipeline

import (
	"fmt"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
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

// OK reports whether the run kept every guarantee.
func (rep *Report) OK() bool { return len(rep.Violations) == 0 }

func (rep *Report) violate(format string, args ...any) {
	rep.Violations = append(rep.Violations, fmt.Sprintf(format, args...))
}

// BackoffReport is what the workers' in-progress back-off asked of the
// queue, as the SQS proxy saw it.
type BackoffReport struct {
	Requests int            // ChangeMessageVisibility requests the workers sent
	Rejected map[string]int // by the server's error type
	Seconds  map[int]int    // accepted requests by the visibility timeout set
	// Sooner counts the accepted requests that made the message visible
	// again before the visibility timeout its receive started would have:
	// the lease ended first. Later counts the others (a lease with more
	// time left than the queue's timeout: the message comes back when a
	// retry can succeed rather than to be found in progress again).
	Sooner, Later int
	// Unmatched counts requests for a receipt handle the event source
	// mapping never received.
	Unmatched int
}

// ConsumerReport is what a consumer run did besides what Report holds.
type ConsumerReport struct {
	Processes int // kept running at once
	Started   int // processes started in all
	// KilledDuringCall, KilledBeforeDelete and Terminated count the
	// processes killed with SIGKILL in a call, killed with SIGKILL as they
	// sent a delete (before it reached the server), and stopped with
	// SIGTERM during a call.
	KilledDuringCall, KilledBeforeDelete, Terminated int
	// LeftByTerminated counts the messages processes stopped by SIGTERM
	// left to come back (their work unfinished when the grace ended).
	LeftByTerminated int
	// SlowStops counts SIGTERM-ed processes still running their grace
	// period plus stopSlack after SIGTERM, then killed.
	SlowStops int
	Receives  int // receive answers with messages
	Copies    int // broker duplicates the proxy handed out
	// Changes counts the visibility changes the processes sent (entries);
	// Extensions those asking for more than 0 s; LostExtensions those the
	// proxy answered without passing on.
	Changes, Extensions, LostExtensions int
	// BackDuringCall counts deliveries of a message while its earlier
	// delivery's call still ran in a live process; BackAfterLost those of
	// them whose extension the proxy lost (the others: extensions that
	// came too late).
	BackDuringCall, BackAfterLost int
	// Sent, Deleted, DeadLettered: distinct message ids the server took,
	// deleted, and holds in the dead-letter queue at the end; Left the
	// messages still in the queue at the end.
	Sent, Deleted, DeadLettered, Left int
	// DeletesChecked counts the deleted messages whose key was read as it
	// was deleted.
	DeletesChecked int
	// SigtermDeliveries counts deliveries of messages a SIGTERM-ed
	// process left (CauseSigterm).
	SigtermDeliveries int
	// Lease is the lease the processes' claims take: IDEMQ_LEASE, or the
	// consumer's default (consumer.DefaultShortLease).
	Lease time.Duration
	// Recovery holds, for each key whose call a process was killed in
	// (KilledDuringCall), how long after the kill its next call started:
	// how long the crash blocked the key (its lease, then its message's
	// next delivery). Keys called again only; in kill order.
	Recovery []time.Duration
	// Errors are the first warnings and errors the processes logged.
	Errors []string
}

// AnswerReport is what a run with large answers stored, and what the
// check read back.
type AnswerReport struct {
	Sizes Sizes
	// Checked are the completed keys whose result the check replayed
	// (through the store and the bucket, as a duplicate does) and found
	// equal to the provider's answer; AnswerBytes their answers' text,
	// Smallest and Largest its extremes.
	Checked               int
	AnswerBytes           int64
	Smallest, Largest     int
	Inline, InlineBytes   int   // results kept in their record, and the bytes stored
	Offloaded             int   // results kept in the bucket (a pointer in the record)
	Objects               int   // objects in the bucket: one per execution that put one
	ObjectBytes           int64 // and their bytes
	WorkerReplayFailures  int   // replays the workers logged as failed
	WorkerReplayedRecords int   // replays the workers counted
}
