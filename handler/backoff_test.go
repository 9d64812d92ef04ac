package handler_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
)

// fakeSQS records ChangeMessageVisibility calls.
type fakeSQS struct {
	mu    sync.Mutex
	calls []sqs.ChangeMessageVisibilityInput
	err   error
}

func (f *fakeSQS) ChangeMessageVisibility(_ context.Context, in *sqs.ChangeMessageVisibilityInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, *in)
	return &sqs.ChangeMessageVisibilityOutput{}, f.err
}

func TestBackoffInProgress(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now().Truncate(time.Millisecond)
	clock := newFakeClock(now)
	holdKey(t, b.store, key("k1"), now, now.Add(90*time.Second+300*time.Millisecond))
	client := &fakeSQS{}
	h := b.wrap(nil, handler.WithBackoff(client), handler.WithIdem(func(c *idem.Config) { c.Clock = clock }))

	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2"), handlerbundle.Msg("m3", "k1")), "m1", "m3")
	if len(client.calls) != 2 {
		t.Fatalf("%d visibility changes, want 2 (one per in-progress message)", len(client.calls))
	}
	seen := map[string]bool{}
	for _, c := range client.calls {
		if *c.QueueUrl != "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs" {
			t.Errorf("queue URL %s", *c.QueueUrl)
		}
		if c.VisibilityTimeout != 92 { // 90.3 s left, rounded up, plus one
			t.Errorf("visibility %d, want 92", c.VisibilityTimeout)
		}
		seen[*c.ReceiptHandle] = true
	}
	if !seen["rh-m1"] || !seen["rh-m3"] {
		t.Errorf("receipt handles %v, want rh-m1 and rh-m3", seen)
	}
	b.WantSummary(map[string]int{"in_progress": 2, "backed_off": 2})
}

func TestBackoffQueueURLOptionAndFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now()
	holdKey(t, b.store, key("k1"), now, now.Add(time.Minute))
	client := &fakeSQS{err: errors.New("throttled")}
	h := b.wrap(nil, handler.WithBackoff(client), func(c *handler.Config) { c.QueueURL = "http://127.0.0.1:9324/000000000000/jobs" })

	// The back-off fails: the record is still reported, nothing else
	// changes.
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")), "m1")
	if len(client.calls) != 1 || *client.calls[0].QueueUrl != "http://127.0.0.1:9324/000000000000/jobs" {
		t.Errorf("calls %+v", client.calls)
	}
	b.WantSummary(map[string]int{"in_progress": 1, "backed_off": 0})
}

func TestNoBackoffForOtherFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	client := &fakeSQS{}
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(handlerbundle.FailOn("m1"), handler.WithBackoff(client)), handlerbundle.Msg("m1", "k1")), "m1")
	if len(client.calls) != 0 {
		t.Errorf("a failed (not in-progress) record was backed off: %+v", client.calls)
	}
}

func TestQueueURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		arn, want string
		ok        bool
	}{
		{"arn:aws:sqs:us-east-1:123456789012:jobs", "https://sqs.us-east-1.amazonaws.com/123456789012/jobs", true},
		{"arn:aws:sqs:eu-west-1:123456789012:jobs.fifo", "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs.fifo", true},
		{"arn:aws-cn:sqs:cn-north-1:123456789012:jobs", "https://sqs.cn-north-1.amazonaws.com.cn/123456789012/jobs", true},
		{"arn:aws-us-gov:sqs:us-gov-west-1:123456789012:jobs", "https://sqs.us-gov-west-1.amazonaws.com/123456789012/jobs", true},
		{"arn:aws-iso:sqs:us-iso-east-1:123456789012:jobs", "", false},
		{"arn:aws:sns:us-east-1:123456789012:topic", "", false},
		{"arn:aws:sqs:us-east-1:123456789012", "", false},
		{"arn:aws:sqs::123456789012:jobs", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, err := handler.QueueURLFromARN(c.arn)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("queueURLFromARN(%q) = %q, %v; want %q, ok %v", c.arn, got, err, c.want, c.ok)
		}
	}
}
