package pipeline

import (
	"time"

	"github.com/idemq/idemq/handler/handlertest"
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
	Lease          time.Duration // IDEMQ_LEASE: must cover SlowCall
	CallTime       time.Duration // one model call
	SlowCall       time.Duration // a call of a ShortVisibility key: longer than Visibility
	ResendGap      time.Duration // between the producer's re-sends
	Faults         handlertest.Faults
	Store          StoreFaults
}

// AllFaults switches every fault on at rates that show each cause many
// times in a few hundred requests.
func AllFaults(seed uint64) handlertest.Faults {
	return handlertest.Faults{Seed: seed, Rates: map[handlertest.Fault]float64{
		handlertest.ShortVisibility: 0.05,
		handlertest.CrashBeforeAck:  0.03,
		handlertest.CrashDuringCall: 0.03,
		handlertest.BrokerDuplicate: 0.1,
		handlertest.ProducerResend:  0.1,
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
		CallTime:    40 * time.Millisecond,
		SlowCall:    2500 * time.Millisecond,
		ResendGap:   10 * time.Millisecond,
		Faults:      AllFaults(seed),
		Store:       StoreFaults{Latency: 2 * time.Millisecond, Throttle: 0.05, LostAnswers: 0.02, Seed: seed},
	}
}

// Full is `make pipeline`: more requests and instances, a batching window.
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
	c.Faults = handlertest.Faults{Seed: seed, Rates: map[handlertest.Fault]float64{
		handlertest.ShortVisibility: 0.2,
		handlertest.CrashBeforeAck:  0.1,
		handlertest.BrokerDuplicate: 0.1,
		handlertest.ProducerResend:  0.1,
	}}
	c.Store = StoreFaults{Latency: 2 * time.Millisecond}
	c.ResendGap = time.Millisecond
	return c
}
