package idemqenv

import "github.com/idemq/idemq/consumer"

// Options are the consumer options c sets (consumer.WithMaxRunTime,
// WithMaxBatches, WithGracePeriod, WithVisibilityTimeout), each zero
// value the consumer's default: pass them to consumer.New with the queue
// URL c.QueueURL.
func (c ConsumerSettings) Options() []consumer.Option {
	return []consumer.Option{consumer.WithMaxRunTime(c.MaxRunTime), consumer.WithMaxBatches(c.MaxBatches),
		consumer.WithGracePeriod(c.GracePeriod), consumer.WithVisibilityTimeout(c.Visibility)}
}
