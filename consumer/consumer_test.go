package consumer_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/idem"
)

func TestExecutesOncePerKeyAndDeletes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	var ids []string
	for i := range 12 {
		ids = append(ids, q.send(body([]string{"a", "b", "c"}[i%3])))
	}
	c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler(), func(c *consumer.Config) { c.BatchSize = 5 })
	eventually(t, "every message deleted", func() bool {
		for _, id := range ids {
			if !q.msg(id).deleted {
				return false
			}
		}
		return true
	})
	for _, k := range []string{"a", "b", "c"} {
		if s, f := b.counts(k); s != 1 || f != 1 {
			t.Errorf("key %s: started %d, finished %d times; want once", k, s, f)
		}
	}
	// The consumer counts a delete after SQS answered it: wait for the
	// counts, not only the deletions the fake saw.
	eventually(t, "every delete counted", func() bool { return c.Stats().Deleted >= 12 })
	st := c.Stats()
	if st.Received != 12 || st.Deleted != 12 || st.Acknowledged != 12 || st.NotDeleted != 0 {
		t.Errorf("stats %+v: want 12 received, acknowledged and deleted", st)
	}
}

func TestFailuresAreNotDeleted(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		if keyOf(t, msg.Body) == "bad" {
			return errors.New("work failed")
		}
		return nil
	}
	q := newFakeSQS(30 * time.Second)
	good, bad := q.send(body("good")), q.send(body("bad"))
	c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler())
	eventually(t, "the batch to end", func() bool { return c.Stats().Batches >= 1 })
	if !q.msg(good).deleted {
		t.Error("the message that succeeded was not deleted")
	}
	if m := q.msg(bad); m.deleted || m.deliveries != 1 {
		t.Errorf("the failed message: deleted %v after %d deliveries; want left in the queue", m.deleted, m.deliveries)
	}
}

func TestDeleteFailuresAreRetried(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	q.onDelete = func(n int, _ string) (error, bool) {
		switch n {
		case 1:
			return errors.New("connection reset"), false
		case 2:
			return nil, true // SQS's side failed the entry
		}
		return nil, false
	}
	id := q.send(body("k"))
	c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler())
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })
	// The consumer counts the delete after SQS answered it: wait for the
	// count, not only the deletion the fake saw.
	eventually(t, "the delete counted", func() bool { st := c.Stats(); return st.Deleted+st.NotDeleted > 0 })
	if st := c.Stats(); st.DeleteErrors != 2 || st.Deleted != 1 || st.NotDeleted != 0 {
		t.Errorf("stats %+v: want 2 delete errors, then 1 deleted", st)
	}
	if m := q.msg(id); m.deliveries != 1 {
		t.Errorf("delivered %d times; want 1", m.deliveries)
	}
}

// A delete that keeps failing acknowledges nothing: the message comes
// back, and its key's record replays the result instead of running the
// work again.
func TestDeleteThatFailsLeavesTheMessageToComeBack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(2 * time.Second)
	q.onDelete = func(n int, _ string) (error, bool) {
		if n <= 3 {
			return errors.New("SQS unreachable"), false
		}
		return nil, false
	}
	id := q.send(body("k"))
	c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler(),
		func(c *consumer.Config) {
			c.DeleteTimeout, c.RetryMin, c.RetryMax = 50*time.Millisecond, 20*time.Millisecond, 20*time.Millisecond
		})
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })
	if m := q.msg(id); m.deliveries < 2 {
		t.Errorf("delivered %d times; want it to come back after the failed delete", m.deliveries)
	}
	eventually(t, "the delete counted", func() bool { return c.Stats().Deleted > 0 })
	if st := c.Stats(); st.NotDeleted < 1 || st.Deleted != 1 {
		t.Errorf("stats %+v: want a message not deleted, then deleted once", st)
	}
	if s, f := b.counts("k"); s != 1 || f != 1 {
		t.Errorf("started %d, finished %d times; want once (the redelivery replays)", s, f)
	}
}

func TestReceiveErrorsAreRetriedAndReportedUnhealthy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	release := make(chan struct{})
	q.onReceive = func(n int) error {
		switch {
		case n <= 3:
			return errors.New("throttled")
		case n == 4:
			<-release
		}
		return nil
	}
	id := q.send(body("k"))
	c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler(), func(c *consumer.Config) { c.UnhealthyAfter = 3 })
	eventually(t, "three failed receives", func() bool { return c.Stats().ReceiveErrors == 3 })
	if err := c.Healthy(); err == nil {
		t.Error("Healthy after 3 failed receives in a row: nil; want an error")
	}
	close(release)
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })
	if err := c.Healthy(); err != nil {
		t.Errorf("Healthy after a receive succeeded: %v", err)
	}
}

// Work longer than the visibility timeout is kept hidden: the message is
// delivered once and its work runs once.
func TestLongWorkIsKeptHidden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(2 * time.Second)
	id := q.send(body("long"))
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		// Run until the message has been extended three times: past
		// 2 × its visibility timeout.
		for len(q.visibilityChanges()) < 3 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		return nil
	}
	c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler(), func(c *consumer.Config) { c.MaxBatches = 2 })
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })
	if m := q.msg(id); m.deliveries != 1 {
		t.Errorf("delivered %d times; want 1 (its visibility extended while it ran)", m.deliveries)
	}
	for _, ch := range q.visibilityChanges() {
		if ch.messageID != id || ch.timeout != 2 {
			t.Errorf("visibility change %+v; want %s extended by 2 s", ch, id)
		}
	}
	if s, f := b.counts("long"); s != 1 || f != 1 {
		t.Errorf("started %d, finished %d times; want once", s, f)
	}
	if st := c.Stats(); st.Extensions < 3 {
		t.Errorf("stats %+v: want at least 3 extensions", st)
	}
}

// Stop lets running work finish, and receives nothing more.
func TestStopLetsRunningWorkFinish(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	running, release := make(chan struct{}), make(chan struct{})
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		close(running)
		<-release
		return ctx.Err()
	}
	first := q.send(body("first"))
	c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler())
	<-running
	stopped := make(chan error, 1)
	go func() { stopped <- c.Stop(context.Background()) }()
	eventually(t, "the consumer to stop receiving", func() bool { return errors.Is(c.Healthy(), consumer.ErrStopped) })
	second := q.send(body("second"))
	close(release)
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if !q.msg(first).deleted {
		t.Error("the work that finished during Stop was not acknowledged")
	}
	// A receive already waiting when Stop came may still take the second
	// message: then it is given back (visibility 0), never run (work
	// would close running twice) nor deleted.
	m := q.msg(second)
	if m.deleted {
		t.Error("a message sent after Stop was deleted")
	}
	if m.deliveries > 0 && !slices.ContainsFunc(q.visibilityChanges(), func(ch visibilityChange) bool { return ch.messageID == second && ch.timeout == 0 }) {
		t.Errorf("a message sent after Stop was received (%d times) and not given back: visibility changes %+v", m.deliveries, q.visibilityChanges())
	}
}

// Work still running when Stop's context ends is never deleted;
// StopAndCancel cancels it, its claim is released, and the message comes
// back to run again.
func TestUnfinishedWorkComesBack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(2 * time.Second)
	running := make(chan struct{})
	cancelled := make(chan error, 1)
	var runs atomic.Int32
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		if runs.Add(1) > 1 {
			return nil // the second run: finish
		}
		close(running)
		<-ctx.Done()
		cancelled <- context.Cause(ctx)
		return ctx.Err()
	}
	id := q.send(body("k"))
	url := "https://sqs.eu-west-1.amazonaws.com/123456789012/fake"
	c := b.start(q, url, b.handler())
	<-running
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	err := c.Stop(ctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Stop with work running past its context: %v; want context.DeadlineExceeded", err)
	}
	if m := q.msg(id); m.deleted {
		t.Fatal("the running work's message was deleted by Stop")
	}
	if err := c.StopAndCancel(context.Background()); err != nil {
		t.Fatalf("StopAndCancel: %v", err)
	}
	if cause := <-cancelled; !errors.Is(cause, context.Canceled) {
		t.Errorf("the work's context ended with %v; want context.Canceled", cause)
	}
	if m := q.msg(id); m.deleted {
		t.Fatal("the cancelled work's message was deleted")
	}
	if s, f := b.counts("k"); s != 1 || f != 0 {
		t.Fatalf("started %d, finished %d; want 1, 0", s, f)
	}
	// Another consumer (another process) gets it when it shows again.
	b.start(q, url, b.handler())
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })
	if s, f := b.counts("k"); s != 2 || f != 1 {
		t.Errorf("started %d, finished %d; want the retry to run it once more", s, f)
	}
}

// A batch received while stopping is given back, never started.
func TestBatchReceivedWhileStoppingIsGivenBack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	inReceive, release := make(chan struct{}), make(chan struct{})
	q.onReceive = func(n int) error {
		if n == 1 {
			close(inReceive)
			<-release // the message arrives as the consumer stops
		}
		return nil
	}
	id := q.send(body("k"))
	c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", b.handler())
	<-inReceive
	stopped := make(chan error, 1)
	go func() { stopped <- c.Stop(context.Background()) }()
	eventually(t, "the consumer to stop receiving", func() bool { return errors.Is(c.Healthy(), consumer.ErrStopped) })
	close(release) // the receive answers with the message despite the stop

	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if s, _ := b.counts("k"); s != 0 {
		t.Errorf("the work started %d times; want never", s)
	}
	if m := q.msg(id); m.deleted || m.deliveries != 1 {
		t.Errorf("a message received while stopping: deleted %v, delivered %d times; want delivered once, not deleted", m.deleted, m.deliveries)
	}
	if ch := q.visibilityChanges(); len(ch) != 1 || ch[0] != (visibilityChange{messageID: id, timeout: 0}) {
		t.Errorf("visibility changes %+v; want %s given back (timeout 0)", ch, id)
	}
	if st := c.Stats(); st.GivenBack != 1 {
		t.Errorf("stats %+v: want 1 given back", st)
	}
}

func TestHandlerErrorAcknowledgesNothing(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]func(context.Context, events.SQSEvent) (events.SQSEventResponse, error){
		"error": func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{}, errors.New("boom")
		},
		"unknown item": func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "not-in-batch"}}}, nil
		},
		"empty item": func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ""}}}, nil
		},
		"panic": func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			panic("boom")
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			q := newFakeSQS(30 * time.Second)
			id1, id2 := q.send(body("a")), q.send(body("b"))
			c := b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", h)
			eventually(t, "the batch to end", func() bool { return c.Stats().Batches >= 1 })
			for _, id := range []string{id1, id2} {
				if q.msg(id).deleted {
					t.Errorf("message %s deleted after %s", id, name)
				}
			}
		})
	}
}

func TestEventIsLambdas(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	got := make(chan events.SQSEvent, 1)
	h := func(ctx context.Context, e events.SQSEvent) (events.SQSEventResponse, error) {
		dl, ok := ctx.Deadline()
		if !ok || time.Until(dl) > time.Minute {
			t.Errorf("handler's deadline %v, %v; want one within the max run time", dl, ok)
		}
		got <- e
		return events.SQSEventResponse{}, nil
	}
	id := q.send(body("k"))
	b.start(q, "https://sqs.eu-west-1.amazonaws.com/123456789012/fake", h, func(c *consumer.Config) { c.MaxRunTime = time.Minute })
	e := <-got
	if len(e.Records) != 1 {
		t.Fatalf("%d records; want 1", len(e.Records))
	}
	r := e.Records[0]
	if r.MessageId != id || r.Body != body("k") || r.ReceiptHandle == "" || r.EventSource != "aws:sqs" ||
		r.EventSourceARN != "arn:aws:sqs:eu-west-1:123456789012:fake" || r.AWSRegion != "eu-west-1" ||
		r.Attributes["ApproximateReceiveCount"] != "1" {
		t.Errorf("record %+v: not what Lambda would deliver", r)
	}
}

func TestNewRefusesBadSettings(t *testing.T) {
	t.Parallel()
	q := newFakeSQS(30 * time.Second)
	h := func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
		return events.SQSEventResponse{}, nil
	}
	for _, tc := range []struct {
		field string
		opt   consumer.Option
	}{
		{"BatchSize", func(c *consumer.Config) { c.BatchSize = 11 }},
		{"WaitTime", func(c *consumer.Config) { c.WaitTime = 21 * time.Second }},
		{"VisibilityTimeout", func(c *consumer.Config) { c.VisibilityTimeout = time.Second }},
		{"VisibilityTimeout", func(c *consumer.Config) { c.VisibilityTimeout = 2500 * time.Millisecond }},
		{"MaxRunTime", func(c *consumer.Config) { c.MaxRunTime = 13 * time.Hour }},
		{"MaxBatches", func(c *consumer.Config) { c.MaxBatches = -1 }},
		{"RetryMax", func(c *consumer.Config) { c.RetryMin, c.RetryMax = time.Second, time.Millisecond }},
		{"options[0]", nil},
	} {
		c, err := consumer.New(q, "url", h, tc.opt)
		if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Package != "consumer" || bad.Field != tc.field || c != nil {
			t.Errorf("%s: %v, %v; want no consumer and an *idem.ConfigError naming it", tc.field, c, err)
		}
	}
	for field, f := range map[string]func() error{
		"client":   func() error { _, err := consumer.New(nil, "url", h); return err },
		"queueURL": func() error { _, err := consumer.New(q, "", h); return err },
		"h":        func() error { _, err := consumer.New(q, "url", nil); return err },
	} {
		if bad, ok := errors.AsType[*idem.ConfigError](f()); !ok || bad.Field != field {
			t.Errorf("%s: err %v; want an *idem.ConfigError naming it", field, f())
		}
	}
	c := must(consumer.New(q, "url", h))
	if err := c.Stop(context.Background()); !errors.Is(err, consumer.ErrNotStarted) {
		t.Errorf("Stop before Start: %v; want ErrNotStarted", err)
	}
}

func TestStartRefusesAQueueWhoseVisibilityCannotBeExtended(t *testing.T) {
	t.Parallel()
	q := newFakeSQS(time.Second)
	h := func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
		return events.SQSEventResponse{}, nil
	}
	c := must(consumer.New(q, "url", h, consumer.WithLogger(testLogger(t))))
	if err := c.Start(context.Background()); !errors.Is(err, consumer.ErrQueue) {
		t.Errorf("Start on a queue with a 1 s visibility timeout: %v; want ErrQueue", err)
	}
	if err := c.Start(context.Background()); !errors.Is(err, consumer.ErrStarted) {
		t.Errorf("second Start: %v; want ErrStarted", err)
	}
}

// Stop called while Start still reads the queue: the consumer receives
// nothing.
func TestStopDuringStart(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := &slowAttributes{fakeSQS: newFakeSQS(30 * time.Second), reading: make(chan struct{}), release: make(chan struct{})}
	id := q.send(body("k"))
	c := must(consumer.New(q, "url", b.handler(), consumer.WithLogger(b.log)))
	started := make(chan error, 1)
	go func() { started <- c.Start(context.Background()) }()
	<-q.reading
	stopped := make(chan error, 1)
	go func() { stopped <- c.Stop(context.Background()) }()
	eventually(t, "Stop to take effect", func() bool { return errors.Is(c.Healthy(), consumer.ErrStopped) })
	close(q.release)
	if err := <-started; err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if m := q.msg(id); m.deliveries != 0 {
		t.Errorf("message delivered %d times after Stop; want never", m.deliveries)
	}
}

type slowAttributes struct {
	*fakeSQS
	reading, release chan struct{}
}

func (s *slowAttributes) GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, opts ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	close(s.reading)
	<-s.release
	return s.fakeSQS.GetQueueAttributes(ctx, in, opts...)
}
