package bench

import (
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Scenario is a situation a batch of records meets.
type Scenario string

// The scenarios of the issue.
const (
	// First: every record's key is new.
	First Scenario = "first delivery"
	// Redelivery: every record was completed before (by an earlier
	// delivery); the container has no local cache.
	Redelivery Scenario = "redelivery of COMPLETED"
	// HalfInProgress: every other record's key is held IN_PROGRESS, with a
	// live lease, by another worker that is still running it.
	HalfInProgress Scenario = "50 % IN_PROGRESS elsewhere"
	// InBatchDuplicates: each key appears twice in its batch (a producer's
	// re-send under a new message id landing in the same batch).
	InBatchDuplicates Scenario = "in-batch duplicates"
	// CacheHits: a warm container with a local cache gets the records it
	// completed a moment ago once more.
	CacheHits Scenario = "local-cache hits"
)

// Scenarios lists every scenario, in report order.
var Scenarios = []Scenario{First, Redelivery, HalfInProgress, InBatchDuplicates, CacheHits}

// FloorRequests is the fewest DynamoDB requests per record a scenario
// allows: 2 for a new key (claim, complete), 1 for a duplicate the store
// must answer (the failed claim brings back the record), 0 for a duplicate
// answered from memory (a copy in the same batch, or a local-cache hit).
func (s Scenario) FloorRequests() float64 {
	switch s {
	case First:
		return 2
	case Redelivery:
		return 1
	case HalfInProgress:
		return 1.5 // half new (2), half held (1)
	case InBatchDuplicates:
		return 1 // 2 for the first copy, 0 for the second
	case CacheHits:
		return 0
	}
	panic("bench: unknown scenario " + string(s))
}

// WantExecutions is the share of a scenario's records whose work must run
// in the measured part.
func (s Scenario) WantExecutions() float64 {
	switch s {
	case First:
		return 1
	case HalfInProgress, InBatchDuplicates:
		return 0.5
	}
	return 0
}

// WantFailures is the share of a scenario's records that must be reported
// as batch item failures: the records another worker holds, which must come
// back.
func (s Scenario) WantFailures() float64 {
	if s == HalfInProgress {
		return 0.5
	}
	return 0
}

// Prep is what a trial does before its measured part.
type Prep string

// The preparations.
const (
	// PrepNone: nothing.
	PrepNone Prep = ""
	// PrepComplete: the measured handler itself processes PrepBatches to
	// the end first (the same warm container).
	PrepComplete Prep = "complete"
	// PrepHold: another worker, with a client of its own, claims the keys
	// of PrepBatches (one event) and holds them in its work until the
	// measured part has ended.
	PrepHold Prep = "hold"
)

// Trial is one measured run of a scenario: the events every
// implementation is handed, one batch at a time.
type Trial struct {
	Scenario    Scenario
	Table       string // a fresh table, set by the suite
	BatchSize   int
	Model       time.Duration // the simulated model call's duration
	Cache       bool          // a local cache in the measured handler
	Prep        Prep
	PrepBatches []events.SQSEvent
	Batches     []events.SQSEvent // measured
	// Answers, when not empty, are what the work returns: record i (its
	// key's number, NewTrial's run-NNNNNN) gets Answers[i % len]; empty,
	// the short completion every scenario returns.
	Answers [][]byte
}

// Records is the number of measured records.
func (t Trial) Records() int { return records(t.Batches) }

// NewTrial builds the events of scenario s: n records (rounded down to an
// even number) in batches of size (even), keys unique to run (eight hex
// digits).
func NewTrial(s Scenario, run string, n, size int, model time.Duration) Trial {
	if size < 2 || size%2 != 0 || n < size {
		panic(fmt.Sprintf("bench: %d records in batches of %d (want an even size, at least one batch)", n, size))
	}
	n -= n % 2
	t := Trial{Scenario: s, BatchSize: size, Model: model}
	msgs := make([]events.SQSMessage, n)
	for i := range msgs {
		msgs[i] = message(run, i, fmt.Sprintf("%s-%06d", run, i))
	}
	switch s {
	case First:
	case Redelivery, CacheHits:
		t.Prep, t.PrepBatches = PrepComplete, split(msgs, size)
		again := make([]events.SQSMessage, n)
		for i, m := range msgs {
			again[i] = redelivered(m)
		}
		msgs = again
		t.Cache = s == CacheHits
	case HalfInProgress:
		held := make([]events.SQSMessage, 0, n/2)
		for i := 1; i < n; i += 2 {
			held = append(held, msgs[i])
		}
		t.Prep, t.PrepBatches = PrepHold, []events.SQSEvent{{Records: held}}
	case InBatchDuplicates:
		// Within each batch, the second half repeats the first half's keys
		// under new message ids.
		for b := 0; b < n; b += size {
			half := min(size, n-b) / 2
			for j := half; j < 2*half; j++ {
				msgs[b+j] = message(run, b+j, fmt.Sprintf("%s-%06d", run, b+j-half))
			}
		}
	default:
		panic("bench: unknown scenario " + string(s))
	}
	t.Batches = split(msgs, size)
	return t
}
