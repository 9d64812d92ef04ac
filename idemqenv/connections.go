package idemqenv

import (
	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
)

// Connections is how many requests to one backend (the store, SQS, S3, a
// model provider) can be under way at once with these settings: the
// batches at once (the invocations the runtime runs at once,
// MaxConcurrency, or in consumer mode Consumer.MaxBatches, each of at most
// 10 messages) times the records each runs at once (Concurrency). Each
// pool keeps that many connections, so that no record waits for another's.
func (s Settings) Connections() int {
	records := handler.DefaultConcurrency
	if s.Concurrency != 0 {
		records = s.Concurrency
	}
	if s.Consumer.QueueURL != "" {
		batches := s.Consumer.MaxBatches
		if batches == 0 {
			batches = consumer.DefaultMaxBatches
		}
		// A receive returns at most 10 messages: a batch never runs more.
		return batches * min(records, 10)
	}
	return max(s.MaxConcurrency, 1) * records
}
