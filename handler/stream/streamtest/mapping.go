package streamtest

import "time"

// Mapping is the event source mapping's settings Drain follows, named as
// Lambda's (ReportBatchItemFailures is always on: handler/stream needs
// it).
type Mapping struct {
	// BatchSize is the most records an invocation gets. Defaults to 100,
	// Lambda's default for Kinesis and DynamoDB Streams.
	BatchSize int
	// BisectBatchOnFunctionError splits a batch whose invocation failed
	// (an error, or a response naming no record of the batch) in two, and
	// sends each half on its own, the first half first; a split is no
	// retry attempt. Defaults to false.
	BisectBatchOnFunctionError bool
	// MaximumRetryAttempts is how many times a batch that did not succeed
	// is sent again from the same checkpoint before its metadata goes to
	// Result.OnFailure and the shard goes on past it; negative: without
	// end (Lambda's default, -1; Drain then returns when ctx ends, or
	// when the records are older than MaximumRecordAge). Defaults to 0:
	// no retry, as Lambda's 0.
	MaximumRetryAttempts int
	// MaximumRecordAge discards the records older than it before an
	// invocation, their metadata to Result.OnFailure. Defaults to 0: no
	// limit (Lambda's -1).
	MaximumRecordAge time.Duration
	// FunctionTimeout is the function's timeout: each invocation's
	// context ends that long after it starts, as Lambda's deadline does
	// (the handler's deadline guard and its wait for a key in progress
	// go by it). Defaults to 0: no deadline but ctx's.
	FunctionTimeout time.Duration
	// Now is the clock records' ages are read from. Defaults to time.Now.
	Now func() time.Time
}

// defaultBatchSize is Lambda's default batch size for Kinesis and
// DynamoDB Streams.
const defaultBatchSize = 100

func (m Mapping) withDefaults() Mapping {
	if m.BatchSize <= 0 {
		m.BatchSize = defaultBatchSize
	}
	if m.Now == nil {
		m.Now = time.Now
	}
	return m
}
