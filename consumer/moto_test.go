package consumer_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/internal/sqstest"
)

// recorder wraps a real SQS client, counting what the consumer asks of it.
type recorder struct {
	*sqs.Client
	mu         sync.Mutex
	deliveries map[string]int // message id → times received
	extensions int            // visibility changes that succeeded, by entry
}

var _ consumer.SQS = (*recorder)(nil)

func newRecorder(c *sqs.Client) *recorder { return &recorder{Client: c, deliveries: map[string]int{}} }

func (r *recorder) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	out, err := r.Client.ReceiveMessage(ctx, in, opts...)
	if err == nil {
		r.mu.Lock()
		for _, m := range out.Messages {
			r.deliveries[aws.ToString(m.MessageId)]++
		}
		r.mu.Unlock()
	}
	return out, err
}

func (r *recorder) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, opts ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	out, err := r.Client.ChangeMessageVisibilityBatch(ctx, in, opts...)
	if err == nil {
		r.mu.Lock()
		r.extensions += len(out.Successful)
		r.mu.Unlock()
	}
	return out, err
}

func (r *recorder) counts() (deliveries map[string]int, extensions int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.deliveries), r.extensions
}

func send(t *testing.T, client *sqs.Client, url, body, group string) string {
	t.Helper()
	in := &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body),
		MessageAttributes: map[string]types.MessageAttributeValue{"tenant": {DataType: aws.String("String"), StringValue: aws.String("acme")}}}
	if group != "" {
		in.MessageGroupId = aws.String(group)
	}
	out, err := client.SendMessage(context.Background(), in)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	return aws.ToString(out.MessageId)
}

// empty reports whether the queue holds no message, visible or in flight.
// The counts are approximate (moto's can read 0 for a moment while a
// receive moves a message): tests wait for their own evidence too.
func empty(t *testing.T, client *sqs.Client, url string) func() bool {
	return func() bool {
		v, f := sqstest.Counts(t, client, url)
		return v == 0 && f == 0
	}
}

// Two consumers (two processes) on one queue and one store, with every
// request sent three times: each key runs once, every message is deleted.
func TestSQSDuplicatesAcrossConsumers(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{})
	b := setup(t)
	const keys = 15
	for range 3 {
		for k := range keys {
			send(t, client, url, body(fmt.Sprintf("k%d", k)), "")
		}
	}
	c1 := b.start(client, url, b.handler(), func(c *consumer.Config) { c.BatchSize = 4 })
	c2 := b.start(client, url, b.handler(), func(c *consumer.Config) { c.BatchSize = 7 })
	eventually(t, "every key run and the queue empty", func() bool {
		for k := range keys {
			if _, f := b.counts(fmt.Sprintf("k%d", k)); f == 0 {
				return false
			}
		}
		return empty(t, client, url)()
	})
	for k := range keys {
		if s, f := b.counts(fmt.Sprintf("k%d", k)); s != 1 || f != 1 {
			t.Errorf("key k%d: started %d, finished %d times; want once", k, s, f)
		}
	}
	// The queue is empty once SQS took the last delete; the consumer
	// counts it after SQS answered: wait for the count. A message the
	// broker handed to both consumers (moto can, as SQS may) is deleted by
	// each, its second copy replayed: at least one delete per message.
	deleted := func() int64 { return c1.Stats().Deleted + c2.Stats().Deleted }
	eventually(t, "every delete counted", func() bool { return deleted() >= 3*keys })
}

// On a FIFO queue each group's messages run in the order they were sent,
// with batches running side by side.
func TestSQSFIFOOrder(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{FIFO: true})
	b := setup(t)
	groups := []string{"g1", "g2", "g3"}
	const per = 12
	for _, g := range groups { // a batch holds several messages of a group
		for i := range per {
			send(t, client, url, body(fmt.Sprintf("%s-%02d", g, i)), g)
		}
	}
	b.start(client, url, b.handler(), func(c *consumer.Config) { c.BatchSize = 5 }, func(c *consumer.Config) { c.MaxBatches = 4 })
	eventually(t, "every message run and the queue empty", func() bool {
		return len(b.startedOrder()) >= len(groups)*per && empty(t, client, url)()
	})
	got := map[string][]string{}
	for _, bd := range b.startedOrder() {
		k := keyOf(t, bd)
		g := k[:strings.Index(k, "-")]
		got[g] = append(got[g], k)
	}
	for _, g := range groups {
		if len(got[g]) != per || !slices.IsSorted(got[g]) {
			t.Errorf("group %s ran %v; want %d keys in the order sent", g, got[g], per)
		}
	}
}

// The record the handler gets carries what Lambda's would.
func TestSQSEventAttributes(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{FIFO: true})
	b := setup(t)
	got := make(chan events.SQSMessage, 1)
	h := func(ctx context.Context, e events.SQSEvent) (events.SQSEventResponse, error) {
		got <- e.Records[0]
		return events.SQSEventResponse{}, nil
	}
	id := send(t, client, url, body("k"), "grp")
	b.start(client, url, h)
	r := <-got
	name := url[strings.LastIndex(url, "/")+1:]
	if r.MessageId != id || r.EventSource != "aws:sqs" || !strings.HasSuffix(r.EventSourceARN, ":"+name) ||
		!strings.HasPrefix(r.EventSourceARN, "arn:aws:sqs:"+r.AWSRegion+":") || r.AWSRegion == "" || r.Md5OfBody == "" {
		t.Errorf("record %+v: not what Lambda would deliver", r)
	}
	for _, a := range []string{"MessageGroupId", "ApproximateReceiveCount", "SentTimestamp"} {
		if r.Attributes[a] == "" {
			t.Errorf("attribute %s missing: %v", a, r.Attributes)
		}
	}
	if r.Attributes["MessageGroupId"] != "grp" {
		t.Errorf("MessageGroupId %q; want grp", r.Attributes["MessageGroupId"])
	}
	if a := r.MessageAttributes["tenant"]; aws.ToString(a.StringValue) != "acme" || a.DataType != "String" {
		t.Errorf("message attribute tenant %+v; want String acme", a)
	}
}

// Work longer than the visibility timeout is not received again while it
// runs: its visibility is extended.
func TestSQSLongWorkIsKeptHidden(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{Visibility: 2 * time.Second})
	rec := newRecorder(client)
	b := setup(t)
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		// Run through three extensions: past 2 × the visibility timeout.
		for {
			if _, n := rec.counts(); n >= 3 {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	id := send(t, client, url, body("long"), "")
	// Two consumers: one that let the message show would receive it.
	b.start(rec, url, b.handler())
	b.start(rec, url, b.handler())
	eventually(t, "the work done and the queue empty", func() bool {
		_, f := b.counts("long")
		return f == 1 && empty(t, client, url)()
	})
	deliveries, extensions := rec.counts()
	if deliveries[id] != 1 || extensions < 3 {
		t.Errorf("delivered %d times with %d extensions; want once, at least 3", deliveries[id], extensions)
	}
	if s, f := b.counts("long"); s != 1 || f != 1 {
		t.Errorf("started %d, finished %d; want once", s, f)
	}
}

// Work cancelled by StopAndCancel is not deleted: the message comes back,
// and another consumer runs it.
func TestSQSStopLeavesUnfinishedWork(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{Visibility: 2 * time.Second})
	b := setup(t)
	running := make(chan struct{})
	var once sync.Once
	first := true
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		b.mu.Lock()
		isFirst := first
		first = false
		b.mu.Unlock()
		if !isFirst {
			return nil
		}
		once.Do(func() { close(running) })
		<-ctx.Done()
		return ctx.Err()
	}
	send(t, client, url, body("k"), "")
	c := b.start(client, url, b.handler())
	<-running
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	err := c.Stop(ctx)
	cancel()
	if err == nil {
		t.Fatal("Stop returned nil with the work still running")
	}
	if err := c.StopAndCancel(context.Background()); err != nil {
		t.Fatalf("StopAndCancel: %v", err)
	}
	if n := sqstest.Held(t, client, url); n != 1 {
		t.Fatalf("queue holds %d messages; want the unfinished message still there", n)
	}
	if st := c.Stats(); st.Deleted != 0 {
		t.Fatalf("stats %+v: want nothing deleted", st)
	}
	b.start(client, url, b.handler())
	eventually(t, "the retry done and the queue empty", func() bool {
		_, f := b.counts("k")
		return f == 1 && empty(t, client, url)()
	})
	if s, f := b.counts("k"); s != 2 || f != 1 {
		t.Errorf("started %d, finished %d; want the retry to finish it", s, f)
	}
}
