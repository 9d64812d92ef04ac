package deploylocal

import (
	"fmt"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
)

// Result is what a Run did and saw.
type Result struct {
	// Calls is the provider's calls per request key (the message's
	// prompt, one per idempotency key).
	Calls map[string]int
	// Sent is how many messages were sent, duplicates included.
	Sent int
	// Stats is the local event source mapping's count of deliveries.
	Stats loadtest.Stats
	// DeadLetters is how many messages ended in the dead-letter queue.
	DeadLetters int
	// Large is what became of the large request, LargeKey, sent once
	// with the others and once more when they were done; nil
	// without the result bucket (idemq:blobs false).
	Large *LargeResult
	// Example is what became of the example app's orders (ExampleDir).
	Example *ExampleResult
	// Steps is how long each step took, in order.
	Steps []Step
}

// Step is one timed step of a Run.
type Step struct {
	Name string
	Took time.Duration
}

// ExampleResult is what became of the example app's orders.
type ExampleResult struct {
	// Sent is how many messages were sent, duplicates included, for
	// Orders orders.
	Sent, Orders int
	// Before, During and After are how many orders were first sent
	// before the deploy that attached idemq, while it ran, and after it.
	Before, During, After int
	// InFlight is how many of the orders sent before were held by a
	// receive (hidden, as a poller holds them) when that deploy began.
	InFlight int
	// Mapping is what became of the team's event source mapping.
	Mapping MappingResult
	// Confirmed is how many times the function did its work for each
	// order (its "order confirmed" log lines), by idempotency key.
	Confirmed map[string]int
	// Executed and Replayed are the handler's own counts, summed over the
	// EMF lines the function wrote (IDEMQ_EMF_NAMESPACE).
	Executed, Replayed int
	// Completed is how many records in the deployed table are COMPLETED.
	Completed int
	// Stats is the local event source mapping's count of deliveries.
	Stats loadtest.Stats
	// DeadLetters is how many messages ended in the dead-letter queue.
	DeadLetters int
}

// MappingResult is the team's event source mapping before and after the
// deploy that attached idemq.
type MappingResult struct {
	// LogicalID is its logical id, the same in both templates (else an
	// error).
	LogicalID string
	// Before and After are its physical id (its UUID) in the stack before
	// and after the deploy.
	Before, After string
	// FromQueue is how many event source mappings run from the queue to
	// the function after the deploy (ListEventSourceMappings).
	FromQueue int
	// ReportsBefore and ReportsAfter say whether it had
	// ReportBatchItemFailures, as Lambda (moto) reports it.
	ReportsBefore, ReportsAfter bool
}

func (r *ExampleResult) String() string {
	return fmt.Sprintf("example app: %d messages for %d orders (%d sent before the deploy that attached idemq, %d of them in flight, %d during it, %d after); "+
		"the mapping %s: %s before, %s after, %d from the queue to the function, ReportBatchItemFailures %v then %v; "+
		"work done per order %v; the handler's counts: %d executed, %d replayed; %d COMPLETED records; %d dead letters",
		r.Sent, r.Orders, r.Before, r.InFlight, r.During, r.After, r.Mapping.LogicalID, r.Mapping.Before, r.Mapping.After, r.Mapping.FromQueue,
		r.Mapping.ReportsBefore, r.Mapping.ReportsAfter, r.Confirmed, r.Executed, r.Replayed, r.Completed, r.DeadLetters)
}

// addStats is a and b together: the counts summed, the last failure per
// message b's where it has one.
func addStats(a, b loadtest.Stats) loadtest.Stats {
	sum := loadtest.Stats{
		Invocations: a.Invocations + b.Invocations, Deleted: a.Deleted + b.Deleted, ItemFailures: a.ItemFailures + b.ItemFailures,
		Deliveries: map[loadtest.Cause]int{}, BatchFailures: map[string]int{}, LastFailure: map[string]string{},
	}
	for _, s := range []loadtest.Stats{a, b} {
		for k, v := range s.Deliveries {
			sum.Deliveries[k] += v
		}
		for k, v := range s.BatchFailures {
			sum.BatchFailures[k] += v
		}
		for k, v := range s.LastFailure {
			sum.LastFailure[k] = v
		}
	}
	return sum
}
