package main

import (
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idemqenv"
)

// newConsumer wires dispatch mode's consumer of s's queue, through
// client, around h. consumer.New's error names a setting it refuses.
// (Worker mode's is package worker's; both run under worker.RunConsumer.)
func newConsumer(s idemqenv.Settings, client *sqs.Client, h handler.Handler, logger *slog.Logger) (*consumer.Consumer, error) {
	return consumer.New(client, s.Consumer.QueueURL, h, append(s.Consumer.Options(), consumer.WithLogger(logger))...)
}
