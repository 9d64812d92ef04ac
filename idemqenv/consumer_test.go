package idemqenv_test

import (
	"testing"
	"time"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/idemqenv"
)

// The consumer's settings read from IDEMQ_CONSUMER_* reach consumer.Config
// through Options, each to its own field.
func TestConsumerOptions(t *testing.T) {
	s, err := idemqenv.Read(func(name string) string {
		return map[string]string{
			idemqenv.Table: "records", idemqenv.ConsumerQueueURL: "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs",
			idemqenv.ConsumerMaxRunTime: "3m", idemqenv.ConsumerMaxBatches: "7", idemqenv.ConsumerGracePeriod: "9s", idemqenv.ConsumerVisibility: "4m",
		}[name]
	})
	if err != nil {
		t.Fatal(err)
	}
	var got consumer.Config
	for _, opt := range s.Consumer.Options() {
		opt(&got)
	}
	want := consumer.Config{MaxRunTime: 3 * time.Minute, MaxBatches: 7, GracePeriod: 9 * time.Second, VisibilityTimeout: 4 * time.Minute}
	if got != want {
		t.Errorf("Options set %+v, want %+v", got, want)
	}
}
