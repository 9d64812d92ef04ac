package producer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/idemq/idemq/producer"
)

// TestLostAnswerResent: the first answer is lost after the queue took the
// message; the producer sends it again, the same body with the same key.
// The queue holds it twice, and the handler runs once.
func TestLostAnswerResent(t *testing.T) {
	t.Parallel()
	fake := &fakeSQS{loseNext: 1}
	p := must(producer.New(fake, queueURL, func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }))
	sent, err := p.Send(context.Background(), producer.Message{Key: "req-1", Body: []byte(`{"prompt":"x"}`)})
	if err != nil {
		t.Fatal(err)
	}
	bodies := fake.taken()
	if sent.Attempts != 2 || len(bodies) != 2 || bodies[0] != bodies[1] {
		t.Fatalf("sent %+v, queue %q: want 2 attempts of one body", sent, bodies)
	}
	if _, n := run(t, bodies); n != 1 {
		t.Errorf("the handler ran %d times over the two copies, want 1", n)
	}
}

// TestAttemptTimeout: an answer that never comes ends with the attempt's
// timeout, and the message is sent again. (On a loaded machine a later
// attempt's timeout can pass too before the fake reads it: one more
// attempt, never fewer.)
func TestAttemptTimeout(t *testing.T) {
	t.Parallel()
	fake := &fakeSQS{hangNext: 1}
	p := must(producer.New(fake, queueURL, func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }, func(c *producer.Config) { c.AttemptTimeout = 20 * time.Millisecond }))
	sent, err := p.Send(context.Background(), producer.Message{Key: "req-1", Body: []byte(`{}`)})
	if taken := fake.taken(); err != nil || sent.Attempts < 2 || len(taken) < 2 || taken[0] != taken[len(taken)-1] {
		t.Errorf("err %v, sent %+v, %d taken: want the hung attempt's message taken again", err, sent, len(taken))
	}
}

// TestAttemptsBounded: answers that are always lost end in ErrUnconfirmed
// after MaxAttempts, wrapping the last cause.
func TestAttemptsBounded(t *testing.T) {
	t.Parallel()
	fake := &fakeSQS{loseNext: 100}
	p := must(producer.New(fake, queueURL, func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }, func(c *producer.Config) { c.MaxAttempts = 3 }))
	sent, err := p.Send(context.Background(), producer.Message{Key: "req-1", Body: []byte(`{}`)})
	if !errors.Is(err, producer.ErrUnconfirmed) || !errors.Is(err, errLost) || sent.Attempts != 3 || len(fake.taken()) != 3 {
		t.Errorf("err %v, sent %+v, %d taken: want ErrUnconfirmed (lost) after 3 attempts", err, sent, len(fake.taken()))
	}
}

// TestContextEndsRetries: the context ending during the back-off stops
// the retries.
func TestContextEndsRetries(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	fake := &fakeSQS{loseNext: 100}
	p := must(producer.New(&cancelling{fakeSQS: fake, cancel: cancel}, queueURL, func(c *producer.Config) { c.RetryMin, c.RetryMax = 1<<40, 1<<40 }))
	sent, err := p.Send(ctx, producer.Message{Key: "req-1", Body: []byte(`{}`)})
	if !errors.Is(err, producer.ErrUnconfirmed) || !errors.Is(err, context.Canceled) || sent.Attempts != 1 {
		t.Errorf("err %v, sent %+v: want ErrUnconfirmed and context.Canceled after 1 attempt", err, sent)
	}
	sent, err = p.Send(ctx, producer.Message{Key: "req-2", Body: []byte(`{}`)})
	if !errors.Is(err, context.Canceled) || errors.Is(err, producer.ErrUnconfirmed) || sent.Attempts != 0 {
		t.Errorf("ended context: err %v, sent %+v: want context.Canceled, nothing sent", err, sent)
	}
	out, err := p.SendBatch(ctx, []producer.Message{{Key: "req-3", Body: []byte(`{}`)}})
	if !errors.Is(err, context.Canceled) || out[0].Attempts != 0 {
		t.Errorf("ended context, batch: err %v, sent %+v: want context.Canceled, nothing sent", err, out)
	}
}

// cancelling cancels the context after each send.
type cancelling struct {
	*fakeSQS
	cancel context.CancelFunc
}

func (c *cancelling) SendMessage(ctx context.Context, in *sqsSendMessageInput, opts ...sqsOption) (*sqsSendMessageOutput, error) {
	defer c.cancel()
	return c.fakeSQS.SendMessage(ctx, in, opts...)
}

func messages(n int, size int) []producer.Message {
	msgs := make([]producer.Message, n)
	for i := range msgs {
		pad := strings.Repeat("x", max(size-40, 0))
		msgs[i] = producer.Message{Key: fmt.Sprintf("req-%03d", i), Body: []byte(fmt.Sprintf(`{"prompt":"%s"}`, pad))}
	}
	return msgs
}

// TestBatchSplit: batches of at most 10 entries and MaxBatchBytes bytes,
// in input order.
func TestBatchSplit(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		msgs  []producer.Message
		opts  []producer.Option
		sizes []int // entries per call
	}{
		{"by count", messages(25, 50), nil, []int{10, 10, 5}},
		{"by bytes", messages(7, 300<<10), nil, []int{3, 3, 1}},
		{"by a lower limit", messages(4, 1000), []producer.Option{func(c *producer.Config) { c.MaxBatchBytes = 2100 }}, []int{2, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := &fakeSQS{}
			p := must(producer.New(fake, queueURL, tc.opts...))
			out, err := p.SendBatch(context.Background(), tc.msgs)
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			var order []string
			for _, b := range fake.batches {
				sizes = append(sizes, len(b.Entries))
				for _, e := range b.Entries {
					order = append(order, aws.ToString(e.Id))
				}
			}
			if !slices.Equal(sizes, tc.sizes) {
				t.Errorf("batches of %v, want %v", sizes, tc.sizes)
			}
			for i, s := range out {
				if s.Err != nil || s.MessageID == "" || s.Attempts != 1 || s.Key != tc.msgs[i].Key || order[i] != fmt.Sprint(i) {
					t.Errorf("message %d: %+v (entry %s)", i, s, order[i])
				}
			}
		})
	}
}

// TestBatchPartialFailure: of a batch SQS partly failed, only the entries
// failed through no fault of the sender are sent again; a sender's fault
// is ErrRejected, named by its index and key.
func TestBatchPartialFailure(t *testing.T) {
	t.Parallel()
	msgs := messages(5, 50)
	fake := &fakeSQS{failEntry: func(call int, body string) (fail, sender bool) {
		switch {
		case strings.Contains(body, "req-001") && call == 0:
			return true, false
		case strings.Contains(body, "req-003"):
			return true, true
		}
		return false, false
	}}
	p := must(producer.New(fake, queueURL, func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }))
	out, err := p.SendBatch(context.Background(), msgs)
	var me *producer.MessageError
	if !errors.As(err, &me) || me.Index != 3 || me.Key != "req-003" || !errors.Is(err, producer.ErrRejected) {
		t.Fatalf("err %v: want message 3 (req-003) rejected", err)
	}
	attempts := []int{1, 2, 1, 1, 1}
	for i, s := range out {
		if s.Attempts != attempts[i] || (i == 3) != (s.Err != nil) || (i != 3) != (s.MessageID != "") {
			t.Errorf("message %d: %+v, want %d attempts", i, s, attempts[i])
		}
	}
	if len(fake.batches) != 2 || len(fake.batches[1].Entries) != 1 || aws.ToString(fake.batches[1].Entries[0].Id) != "1" {
		t.Errorf("second call %+v: want entry 1 alone", fake.batches[1:])
	}
	if len(fake.taken()) != 4 {
		t.Errorf("%d taken, want 4", len(fake.taken()))
	}
}

// TestBatchLostAnswer: a batch whose answer is lost is sent again whole;
// the handler runs once per key over every copy.
func TestBatchLostAnswer(t *testing.T) {
	t.Parallel()
	fake := &fakeSQS{loseNext: 1}
	p := must(producer.New(fake, queueURL, func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }))
	out, err := p.SendBatch(context.Background(), messages(3, 50))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range out {
		if s.Attempts != 2 {
			t.Errorf("message %d: %+v, want 2 attempts", i, s)
		}
	}
	bodies := fake.taken()
	if keys, n := run(t, bodies); len(bodies) != 6 || n != 3 || len(keys) != 3 {
		t.Errorf("%d copies ran %d times, want 6 copies run 3 times", len(bodies), n)
	}
}

// TestBatchOversized: a message above the limit fails alone.
func TestBatchOversized(t *testing.T) {
	t.Parallel()
	msgs := messages(3, 100)
	msgs[1] = producer.Message{Key: "big", Body: []byte(`{"p":"` + strings.Repeat("x", 1<<20) + `"}`)}
	fake := &fakeSQS{}
	p := must(producer.New(fake, queueURL))
	out, err := p.SendBatch(context.Background(), msgs)
	var me *producer.MessageError
	if !errors.As(err, &me) || me.Index != 1 || !errors.Is(err, producer.ErrTooLarge) {
		t.Fatalf("err %v: want message 1 too large", err)
	}
	if out[0].Err != nil || out[2].Err != nil || out[1].Attempts != 0 || len(fake.taken()) != 2 {
		t.Errorf("sent %+v, %d taken: want the other two sent", out, len(fake.taken()))
	}
}
