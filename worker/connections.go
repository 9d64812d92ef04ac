package worker

import (
	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idemqenv"
)

// connections is how many requests to one backend (the store, SQS, S3,
// Lambda, a model provider) can be under way at once with settings s: the
// batches at once (the invocations the runtime runs at once,
// AWS_LAMBDA_MAX_CONCURRENCY, or in consumer mode
// IDEMQ_CONSUMER_MAX_BATCHES, each of at most 10 messages) times the
// records each runs at once (IDEMQ_CONCURRENCY, or the handler's or the
// dispatcher's default). Each pool keeps that many connections, so that
// no record waits for another's.
func connections(s idemqenv.Settings) int {
	records := handler.DefaultConcurrency
	if s.Program == idemqenv.Dispatch {
		records = durable.DefaultConcurrency
	}
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
