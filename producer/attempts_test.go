package producer_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/idemq/idemq/internal/sqstest"
	"github.com/idemq/idemq/producer"
)

// TestOneRetryLayer: a send that always fails reaches SQS MaxAttempts
// times, through a client as users build it (the SDK's standard retryer,
// 3 attempts a call): the producer's attempts are the only retries, not
// MaxAttempts × the SDK's.
func TestOneRetryLayer(t *testing.T) {
	t.Parallel()
	const attempts = 4
	for _, fault := range []sqstest.Fault{sqstest.ServerError, sqstest.Throttle, sqstest.Drop} {
		for _, op := range []string{"SendMessage", "SendMessageBatch"} {
			t.Run(fmt.Sprintf("%s/%s", op, fault), func(t *testing.T) {
				t.Parallel()
				srv := sqstest.NewFaultServer(t, func(string, int) sqstest.Fault { return fault }, nil)
				p := must(producer.New(srv.Client(), srv.URL+"/123456789012/requests",
					func(c *producer.Config) { c.MaxAttempts = attempts }, func(c *producer.Config) { c.RetryMin, c.RetryMax = time.Millisecond, time.Millisecond }))
				msg := producer.Message{Key: "req-1", Body: []byte(`{}`)}
				var sent producer.Sent
				var err error
				if op == "SendMessage" {
					sent, err = p.Send(context.Background(), msg)
				} else {
					var out []producer.Sent
					out, err = p.SendBatch(context.Background(), []producer.Message{msg})
					sent = out[0]
				}
				if !errors.Is(err, producer.ErrUnconfirmed) || sent.Attempts != attempts {
					t.Errorf("err %v, %d attempts: want ErrUnconfirmed after %d", err, sent.Attempts, attempts)
				}
				if n := srv.Requests(op); n != attempts {
					t.Errorf("%d %s requests reached SQS, want %d: one per attempt", n, op, attempts)
				}
			})
		}
	}
}

// TestClockSkewResent: an answer the SDK would have retried, a refusal
// for the client's clock (403 RequestTimeTooSkewed, dated an hour ahead),
// is no rejection: the producer sends the message again, signed by the
// clock the SDK corrected from the answer's date, and it is taken.
func TestClockSkewResent(t *testing.T) {
	t.Parallel()
	srv := sqstest.NewFaultServer(t, func(_ string, n int) sqstest.Fault {
		if n == 0 {
			return sqstest.Skewed
		}
		return sqstest.Answer
	}, func(context.Context, string, map[string]any) any { return map[string]any{"MessageId": "m1"} })
	p := must(producer.New(srv.Client(), srv.URL+"/123456789012/requests", func(c *producer.Config) { c.RetryMin, c.RetryMax = time.Millisecond, time.Millisecond }))
	sent, err := p.Send(context.Background(), producer.Message{Key: "req-1", Body: []byte(`{}`)})
	if err != nil || sent.Attempts != 2 || sent.MessageID != "m1" {
		t.Errorf("err %v, sent %+v: want m1 taken on the second attempt", err, sent)
	}
}
