package streams

import (
	"time"

	"github.com/idemq/idemq/handler/stream/streamtest"
)

// Source is the stream a run puts its requests on.
type Source string

// The sources a run takes.
const (
	Kinesis         Source = "kinesis"          // a Kinesis data stream on moto_server
	DynamoDBStreams Source = "dynamodb-streams" // a DynamoDB table's stream on DynamoDB Local
)

// Parts are where the run's servers listen.
type Parts struct {
	Moto     string // moto_server: Kinesis
	DynamoDB string // DynamoDB Local: the records' store, and the DynamoDB Streams source
}

// Config is one stream run: the requests, where they go, and the faults.
type Config struct {
	Source Source
	Seed   uint64
	// Keys is how many requests the producer puts, each once, some again.
	Keys int
	// Partitions is how many partition keys (DynamoDB Streams: items) the
	// requests are dealt to, at random.
	Partitions int
	// Shards is how many shards the Kinesis stream has, each drained on
	// its own, at once (DynamoDB Local's stream has one).
	Shards int
	// Resend is the share of requests the producer puts again (a retried
	// PutRecord, a retried write of the change: a new record, a new
	// sequence number), 1 to 30 records later.
	Resend float64
	// FailFirst is the share of requests whose provider call fails the
	// first time: a record failure the shard resumes from.
	FailFirst float64
	// FunctionErrors is the share of invocations that fail before the
	// work (a whole-batch retry; bisected).
	FunctionErrors float64
	// CrashAfter is the share of invocations whose answer is lost after
	// the work (the function crashed before it answered: the mapping
	// sends the batch again).
	CrashAfter float64
	// CrashDuring is the share of invocations that die at their first
	// provider call (the call not billed): the claim stays in progress
	// until its lease ends, and the batch comes again at once, finding
	// the key in progress until then.
	CrashDuring float64
	// Lease is the claims' lease (idem.Config.Lease), short so that a
	// key a dead invocation held comes free within the run.
	Lease time.Duration
	// CallTime is how long a provider call takes.
	CallTime time.Duration
	// Mapping is the event source mapping's settings.
	Mapping streamtest.Mapping
}

// RunConfig returns the run for source with the faults on, sized for moto
// and DynamoDB Local (seconds each), the mapping retrying without end
// (Lambda's default); small is a smaller run.
func RunConfig(source Source, seed uint64, small bool) Config {
	c := Config{
		Source: source, Seed: seed, Keys: 400, Partitions: 16, Shards: 4,
		Resend: 0.25, FailFirst: 0.05, FunctionErrors: 0.1, CrashAfter: 0.1, CrashDuring: 0.05,
		CallTime: 2 * time.Millisecond, Lease: 300 * time.Millisecond,
		Mapping: streamtest.Mapping{BatchSize: 25, BisectBatchOnFunctionError: true, MaximumRetryAttempts: -1},
	}
	if source == DynamoDBStreams {
		c.Shards = 1
	}
	if small {
		c.Keys, c.Partitions = 60, 6
	}
	return c
}
