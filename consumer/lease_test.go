package consumer_test

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/idem"
)

const fakeURL = "https://sqs.eu-west-1.amazonaws.com/123456789012/fake"

// By default a claim the handler makes without a lease of its own takes
// the consumer's short lease (DefaultShortLease), not the batch's deadline
// (MaxRunTime, 15 minutes, plus idem's margin): a crashed consumer's key
// is free about a minute later.
func TestDefaultLeaseIsShort(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(30 * time.Second)
	var leaseLeft atomic.Int64
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		key := must(idem.ClientKey("consumer-test", keyOf(t, msg.Body)))
		rec, ok, err := b.store.(interface {
			Get(context.Context, idem.Key) (idem.Record, bool, error)
		}).Get(ctx, key)
		if err != nil || !ok {
			return errors.Join(err, errors.New("no record"))
		}
		leaseLeft.Store(int64(time.Until(rec.LeaseUntil)))
		return nil
	}
	id := q.send(body("short"))
	b.start(q, fakeURL, b.handler())
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })
	// Read after the claim: the claim's lease ends at most DefaultShortLease
	// (plus idem's clock-skew bound, which every stored lease carries)
	// after this read.
	if left := time.Duration(leaseLeft.Load()); left <= 0 || left > consumer.DefaultShortLease+idem.DefaultClockSkew {
		t.Errorf("the claim's lease had %s left; want at most consumer.DefaultShortLease, %s, plus idem.DefaultClockSkew", left, consumer.DefaultShortLease)
	}
}

// extendCounter is a store that counts extensions of leases.
type extendCounter struct {
	idem.Store
	extends atomic.Int64
}

func (e *extendCounter) Extend(ctx context.Context, x idem.Extension) error {
	err := e.Store.Extend(ctx, x)
	if err == nil {
		e.extends.Add(1)
	}
	return err
}

// Work longer than the short lease keeps its key: the heartbeat renews it,
// the message is acknowledged once and the work runs once.
func TestHeartbeatKeepsLongWork(t *testing.T) {
	t.Parallel()
	b := setup(t)
	store := &extendCounter{Store: b.store}
	b.store = store
	q := newFakeSQS(2 * time.Second)
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		// Run until the lease has been renewed 4 times: past 3 leases.
		for store.extends.Load() < 4 {
			select {
			case <-ctx.Done():
				return context.Cause(ctx)
			case <-time.After(20 * time.Millisecond):
			}
		}
		return nil
	}
	id := q.send(body("long"))
	b.start(q, fakeURL, b.handler(), func(c *consumer.Config) { c.Lease, c.Heartbeat = 400*time.Millisecond, 100*time.Millisecond })
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })
	if s, f := b.counts("long"); s != 1 || f != 1 {
		t.Errorf("started %d, finished %d; want once", s, f)
	}
}

// A consumer that dies mid-work (its record's goroutine exits: no
// release, no more heartbeats, as a killed process) leaves its key in
// progress; once the short lease passes, the message's next delivery
// takes the key over and runs the work once more, and only once.
func TestCrashedConsumersKeyIsTakenOver(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(2 * time.Second)
	var runs atomic.Int32
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		if runs.Add(1) == 1 {
			runtime.Goexit() // the crash: nothing settles the claim
		}
		return nil
	}
	h := b.handler()
	id := q.send(body("crash"))
	b.start(q, fakeURL, h, func(c *consumer.Config) { c.Lease, c.Heartbeat = time.Second, 250*time.Millisecond })
	eventually(t, "the message deleted", func() bool { return q.msg(id).deleted })
	if s, f := b.counts("crash"); s != 2 || f != 1 {
		t.Errorf("started %d, finished %d; want the crashed run and one more", s, f)
	}
	key := must(idem.ClientKey("consumer-test", "crash"))
	if rec, ok, err := b.store.(interface {
		Get(context.Context, idem.Key) (idem.Record, bool, error)
	}).Get(context.Background(), key); err != nil || !ok || rec.Status != idem.StatusCompleted || string(rec.Result) != "done:crash" {
		t.Errorf("the key's record: %+v %v %v; want the second run's result", rec, ok, err)
	}
}

func TestLeaseSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opt   consumer.Option
		field string
	}{
		{func(c *consumer.Config) { c.Lease, c.Heartbeat = time.Minute, 31*time.Second }, "Heartbeat"},
		{func(c *consumer.Config) { c.Lease, c.Heartbeat = time.Minute, -time.Second }, "Heartbeat"},
		{func(c *consumer.Config) { c.Lease, c.Heartbeat = -1, time.Second }, "Heartbeat"},
	} {
		err := consumer.Config{}.Validate()
		if err != nil {
			t.Fatal(err)
		}
		var c consumer.Config
		tc.opt(&c)
		if bad, ok := errors.AsType[*idem.ConfigError](c.Validate()); !ok || bad.Field != tc.field {
			t.Errorf("%+v: %v, want an *idem.ConfigError naming %s", c, c.Validate(), tc.field)
		}
	}
	for _, opt := range []consumer.Option{func(c *consumer.Config) { c.Lease, c.Heartbeat = 0, 0 }, func(c *consumer.Config) { c.Lease, c.Heartbeat = time.Minute, 0 }, func(c *consumer.Config) { c.Lease, c.Heartbeat = 0, 30*time.Second }, func(c *consumer.Config) { c.Lease = -1 }} {
		var c consumer.Config
		opt(&c)
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
}
