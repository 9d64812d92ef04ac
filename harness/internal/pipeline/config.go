package pipeline

import (
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/idem"
)

// Variant names what processes the messages.
type Variant string

// The variants.
const (
	// Idemq: the reference worker (lambda/, built as bootstrap) under one
	// Lambda Runtime Interface Emulator per instance, on DynamoDB Local
	// behind the fault-injecting proxy.
	Idemq Variant = "idemq (bootstrap under RIE)"
	// MarkAfter: internal/demo's naive variant that marks a key done after
	// the call, in process.
	MarkAfter Variant = "naive: mark after the call"
	// ReadThenWrite: internal/demo's naive variant that reads, then writes
	// IN_PROGRESS, in process.
	ReadThenWrite Variant = "naive: read, then write"
)

// Config is one scenario.
type Config struct {
	Variant        Variant
	Requests       int           // unique requests (keys)
	Poison         int           // messages with no key: they must end in the DLQ
	Instances      int           // function instances (concurrency)
	BatchSize      int           // Lambda's batch size
	BatchingWindow time.Duration // Lambda's batching window
	Visibility     time.Duration // the queue's visibility timeout, whole seconds
	MaxReceives    int           // the redrive policy's maxReceiveCount
	Timeout        time.Duration // the function timeout, whole seconds
	Lease          time.Duration // IDEMQ_LEASE; 0: the worker's default
	// Heartbeat is IDEMQ_HEARTBEAT (0: the worker's default, off): a live
	// worker keeps its lease (a slow
	// call plus the store's retry back-off, up to seconds after a
	// throttled request, may outlast Lease), a killed one lets it pass.
	Heartbeat time.Duration
	CallTime  time.Duration // one model call
	SlowCall  time.Duration // a call of a ShortVisibility key: longer than Visibility
	ResendGap time.Duration // between the producer's re-sends
	Faults    loadtest.Faults
	// Backend is the store the workers keep their records in; "" is
	// DynamoDB.
	Backend Backend
	Store   StoreFaults // the faults of the store, whichever it is
	// FIFO runs a FIFO queue (and dead-letter queue): the keys are dealt
	// round-robin to Groups message groups, each send has a deduplication
	// id of its own, and the check adds per-group order.
	FIFO   bool
	Groups int
	// Backoff turns the workers' in-progress back-off on
	// (IDEMQ_BACKOFF=true): they send ChangeMessageVisibility to the SQS
	// server through a proxy that counts them.
	Backoff bool
	// Consumer holds the Consumer variant's own settings (consumer.go).
	Consumer ConsumerSettings
	// Answers sizes the provider's answers (sizes.go); zero: its own short
	// ones. Blobs gives the workers a result bucket on Parts.S3
	// (IDEMQ_BLOB_BUCKET, IDEMQ_S3_ENDPOINT).
	Answers Sizes
	Blobs   bool
}

// AllFaults switches every fault on at rates that show each cause many
// times in a few hundred requests.
func AllFaults(seed uint64) loadtest.Faults {
	return loadtest.Faults{Seed: seed, Rates: map[loadtest.Fault]float64{
		loadtest.ShortVisibility: 0.05,
		loadtest.CrashBeforeAck:  0.03,
		loadtest.CrashDuringCall: 0.03,
		loadtest.BrokerDuplicate: 0.1,
		loadtest.ProducerResend:  0.1,
		// Every lost answer is re-sent by the producer: on a standard
		// queue a second message with the same key, on a FIFO queue one
		// the queue drops (same deduplication id).
		loadtest.ProducerLostAnswer: 0.05,
	}}
}

// Small is the run inside `go test ./...`: a few hundred messages, every
// fault on.
func Small(seed uint64) Config {
	return Config{
		Variant:     Idemq,
		Requests:    200,
		Poison:      2,
		Instances:   4,
		BatchSize:   10,
		Visibility:  2 * time.Second,
		MaxReceives: 6,
		Timeout:     10 * time.Second,
		Lease:       4 * time.Second,
		Heartbeat:   time.Second,
		CallTime:    40 * time.Millisecond,
		SlowCall:    2500 * time.Millisecond,
		ResendGap:   10 * time.Millisecond,
		Faults:      AllFaults(seed),
		Store:       StoreFaults{Latency: 2 * time.Millisecond, Throttle: 0.05, LostAnswers: 0.02, Seed: seed},
	}
}

// Full is `make pipeline`'s standard run: more requests and instances, a
// batching window.
func Full(seed uint64) Config {
	c := Small(seed)
	c.Requests, c.Poison, c.Instances = 1000, 5, 6
	c.BatchingWindow = 200 * time.Millisecond
	return c
}

// DemoLocal is `make demo-local`: the demo's scenario (internal/demo's
// rates: a fifth of the calls outlast the visibility timeout, a tenth
// crash before the ack, are duplicated by the broker or re-sent by the
// producer) on the real pipeline. The faults only a real process can have
// (killed during the call, a store behind a network) are off, so the three
// variants face exactly the same ones.
func DemoLocal(seed uint64) Config {
	c := Small(seed)
	c.Faults = loadtest.Faults{Seed: seed, Rates: map[loadtest.Fault]float64{
		loadtest.ShortVisibility: 0.2,
		loadtest.CrashBeforeAck:  0.1,
		loadtest.BrokerDuplicate: 0.1,
		loadtest.ProducerResend:  0.1,
	}}
	c.Store = StoreFaults{Latency: 2 * time.Millisecond}
	c.ResendGap = time.Millisecond
	return c
}

// FIFOFaults are AllFaults without the broker's duplicate: a FIFO queue
// delivers a message once (the event source mapping would not inject it
// anyway).
func FIFOFaults(seed uint64) loadtest.Faults {
	f := AllFaults(seed)
	delete(f.Rates, loadtest.BrokerDuplicate)
	f.Rates[loadtest.CrashDuringCall] = 0.05 // so a few dozen keys see one
	f.Rates[loadtest.ProducerLostAnswer] = 0.1
	return f
}

// SmallFIFO is the FIFO run inside `go test ./...`: 24 keys dealt to 12
// message groups, every fault a FIFO queue can have, and the in-progress
// back-off on.
//
// The visibility timeout (4 s) is longer than the back-off given to a
// message found in progress after a crash during the call or during a
// slow call: the lease (5.5 s, covering the 4.4 s slow call) then has
// under 2 s left, rounded up plus 1 s makes 3 s, so such a message comes
// back sooner than the queue would bring it. Batches hold 2 messages:
// fauxqs hands out one message per group per receive, so a batch spans
// groups, and a batch that stalls (a slow call, a crash) holds every group
// in it until its visibility timeout ends. No message without a key: on
// FIFO it would hold its group for max receives × visibility timeout (the
// full run has them, each in a group of its own).
func SmallFIFO(seed uint64) Config {
	c := Small(seed)
	c.FIFO, c.Backoff = true, true
	c.Requests, c.Poison, c.Groups, c.BatchSize = 24, 0, 12, 2
	c.Visibility, c.SlowCall, c.Lease = 4*time.Second, 4400*time.Millisecond, 5500*time.Millisecond
	c.Faults = FIFOFaults(seed)
	return c
}

// backend is c.Backend, DynamoDB when unset.
func (c Config) backend() Backend {
	if c.Backend == "" {
		return DynamoDB
	}
	return c.Backend
}

// lease is the lease the workers take: Lease, or the worker's default,
// the invocation's time left (at most the timeout) plus the margin.
func (c Config) lease() time.Duration {
	if c.Lease > 0 {
		return c.Lease
	}
	return c.Timeout + idem.DefaultLeaseMargin
}

// Defaults is Small with the worker's default settings: only the endpoints
// are the pipeline's. The lease (the 10 s timeout plus the margin) is
// longer than the 2 s visibility timeout times the 6 receives, so a
// message found in progress after a worker died with the answer would
// reach the dead-letter queue with its work undone, were the back-off
// (on by default) not to hold it back until the lease has passed.
func Defaults(seed uint64) Config {
	c := Small(seed)
	c.Requests, c.Backoff, c.Lease, c.Heartbeat = 100, true, 0, 0
	return c
}

// DefaultsFIFO is SmallFIFO with the worker's default settings.
func DefaultsFIFO(seed uint64) Config {
	c := SmallFIFO(seed)
	c.Lease, c.Heartbeat = 0, 0
	return c
}

// FullFIFO is `make pipeline`'s FIFO run: more keys, groups and instances,
// and messages without a key (each in a group of its own).
func FullFIFO(seed uint64) Config {
	c := SmallFIFO(seed)
	c.Requests, c.Poison, c.Groups, c.Instances = 300, 2, 24, 6
	return c
}

// Consumer: the reference worker (lambda/, built as bootstrap) run as
// Config.Instances long-running consumer processes that poll the queue
// themselves (no emulator, no event source mapping), through an
// SQSFaultProxy, on the store behind its fault proxy.
const Consumer Variant = "idemq consumer (bootstrap, K processes)"

// ConsumerSettings are a consumer run's own settings.
type ConsumerSettings struct {
	// Grace is the processes' grace period after SIGTERM.
	Grace time.Duration
	// MaxBatches is how many batches a process runs at once
	// (IDEMQ_CONSUMER_MAX_BATCHES).
	MaxBatches int
	// MaxRunTime is each batch's deadline (IDEMQ_CONSUMER_MAX_RUN_TIME):
	// longer than LongCall, as a function's timeout is longer than its
	// longest work.
	MaxRunTime time.Duration
	// LongCall is the call of a key whose visibility extensions are lost
	// (LostExtension): long enough for its message to come back while it
	// runs, whatever the receivers are busy with.
	LongCall time.Duration
}

// Sizes is the range of the provider's answers (the completion's text, in
// bytes) in a run with large answers: each key's size is drawn from it,
// log-uniformly (as many keys from 1 to 2 KB as from 1 to 2 MB), by a
// hash of the key, and the text is Newton's Opticks (the prose results are
// measured on) from an offset drawn the same way. The zero value is the
// provider's own short answers.
type Sizes struct{ Min, Max int }
