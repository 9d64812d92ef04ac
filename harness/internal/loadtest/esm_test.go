package loadtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/harness/internal/loadtest"
)

// runOnce sends n messages and runs an ESM whose single instance answers
// with respond on the first invocation and succeeds afterwards; it returns
// the deliveries of each message id.
func runOnce(t *testing.T, n int, respond func(events.SQSEvent) (events.SQSEventResponse, error)) (map[string]int, loadtest.Stats) {
	t.Helper()
	q := handlertest.NewQueue(handlertest.WithVisibility(50*time.Millisecond), handlertest.WithMaxReceives(10))
	for range n {
		q.Send(`{"idempotency_key":"k"}`)
	}
	seen := map[string]int{}
	first := true
	inv := loadtest.InvokerFunc(func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		for _, m := range ev.Records {
			seen[m.MessageId]++
		}
		if first {
			first = false
			return respond(ev)
		}
		return events.SQSEventResponse{}, nil
	})
	esm := loadtest.ESM{Source: q, Instances: []loadtest.Invoker{inv}, BatchSize: n, PollWait: 10 * time.Millisecond}
	stats, err := esm.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return seen, stats
}

func TestESMResponses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		respond func(events.SQSEvent) (events.SQSEventResponse, error)
		again   int    // messages delivered twice
		failure string // whole-batch failure reason
	}{
		{"empty response deletes all", func(events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{}, nil
		}, 0, ""},
		{"listed items come back", func(ev events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ev.Records[1].MessageId}}}, nil
		}, 1, ""},
		{"error fails the batch", func(events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{}, errors.New("boom")
		}, 3, "error"},
		{"empty identifier fails the batch", func(events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{}}}, nil
		}, 3, "malformed response"},
		{"unknown identifier fails the batch", func(events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "nope"}}}, nil
		}, 3, "malformed response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			seen, stats := runOnce(t, 3, tc.respond)
			again := 0
			for _, n := range seen {
				if n > 1 {
					again++
				}
			}
			if len(seen) != 3 || again != tc.again {
				t.Errorf("deliveries %v: want 3 messages, %d of them twice", seen, tc.again)
			}
			if tc.failure != "" && stats.BatchFailures[tc.failure] != 1 {
				t.Errorf("batch failures %v, want one %q", stats.BatchFailures, tc.failure)
			}
			if stats.Deleted != 3 {
				t.Errorf("deleted %d, want 3", stats.Deleted)
			}
		})
	}
}

func TestESMCrashBeforeAck(t *testing.T) {
	t.Parallel()
	q := handlertest.NewQueue(handlertest.WithVisibility(50 * time.Millisecond))
	id := q.Send(`{"idempotency_key":"k"}`)
	calls := 0
	inv := loadtest.InvokerFunc(func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
		calls++
		return events.SQSEventResponse{}, nil
	})
	f := loadtest.Faults{Rates: map[loadtest.Fault]float64{loadtest.CrashBeforeAck: 1}}
	esm := loadtest.ESM{Source: q, Instances: []loadtest.Invoker{inv}, Faults: f, PollWait: 10 * time.Millisecond}
	stats, err := esm.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || stats.Deliveries[loadtest.CauseCrash] != 1 || stats.BatchFailures["crash"] != 1 {
		t.Fatalf("message %s: %d invocations, stats %+v; want the crash to bring it back once", id, calls, stats)
	}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	ev := handlertest.Event(handlertest.Message("a", "{}"), handlertest.Message("b", "{}"))
	got, err := handlertest.Failures(ev, events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "b"}}})
	if err != nil || len(got) != 1 || !got["b"] {
		t.Fatalf("Failures = %v, %v; want b", got, err)
	}
	_, err = handlertest.Failures(ev, events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "c"}}})
	if !errors.Is(err, handlertest.ErrMalformedResponse) {
		t.Fatalf("unknown id: err %v, want ErrMalformedResponse", err)
	}
}

func TestEventHelpers(t *testing.T) {
	t.Parallel()
	m := handlertest.Message("m1", `{"idempotency_key":"k"}`)
	r := handlertest.Redelivery(handlertest.Redelivery(m))
	if r.MessageId != "m1" || handlertest.ReceiveCount(r) != 3 || r.ReceiptHandle == m.ReceiptHandle {
		t.Errorf("redelivery %+v: want m1, receive count 3, a new receipt", r)
	}
	if handlertest.ReceiveCount(m) != 1 {
		t.Errorf("the original changed: %+v", m)
	}
	d := handlertest.Duplicate(m)
	if d.MessageId != m.MessageId || d.ReceiptHandle == m.ReceiptHandle {
		t.Errorf("duplicate %+v: want the same id, another receipt", d)
	}
	s := handlertest.Resend(m, "m2")
	if s.MessageId != "m2" || s.Body != m.Body || handlertest.ReceiveCount(s) != 1 {
		t.Errorf("resend %+v: want m2, same body, first delivery", s)
	}
}

func TestFaultsPicks(t *testing.T) {
	t.Parallel()
	f := loadtest.Faults{Seed: 7, Rates: map[loadtest.Fault]float64{loadtest.BrokerDuplicate: 0.25}}
	n := 0
	for i := range 4000 {
		id := string(rune('a'+i%26)) + string(rune(i))
		again := loadtest.Faults{Seed: 7, Rates: f.Rates}
		picked := f.Picks(loadtest.BrokerDuplicate, id)
		if picked != again.Picks(loadtest.BrokerDuplicate, id) {
			t.Fatal("Picks is not deterministic")
		}
		if picked {
			n++
		}
		if f.Picks(loadtest.CrashBeforeAck, id) {
			t.Fatal("a fault with no rate picked a message")
		}
	}
	if n < 800 || n > 1200 {
		t.Errorf("picked %d of 4000 at rate 0.25", n)
	}
}

// groupSource is a Queue whose messages carry a MessageGroupId, as a FIFO
// queue's do.
type groupSource struct{ *handlertest.Queue }

func (s groupSource) Receive(ctx context.Context, max int, wait time.Duration) ([]events.SQSMessage, error) {
	msgs, err := s.Queue.Receive(ctx, max, wait)
	for i := range msgs {
		msgs[i].Attributes["MessageGroupId"] = "g1"
	}
	return msgs, err
}

func TestESMNoBrokerDuplicatesOnFIFO(t *testing.T) {
	t.Parallel()
	f := loadtest.Faults{Rates: map[loadtest.Fault]float64{loadtest.BrokerDuplicate: 1}}
	for _, fifo := range []bool{false, true} {
		q := handlertest.NewQueue()
		for range 4 {
			q.Send(`{"idempotency_key":"k"}`)
		}
		var src loadtest.Source = q
		if fifo {
			src = groupSource{q}
		}
		ok := loadtest.InvokerFunc(func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{}, nil
		})
		esm := loadtest.ESM{Source: src, Instances: []loadtest.Invoker{ok, ok}, Faults: f, PollWait: 10 * time.Millisecond}
		stats, err := esm.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		dups := stats.Deliveries[loadtest.CauseDuplicate]
		if fifo && dups != 0 || !fifo && dups != 4 {
			t.Errorf("fifo %v: %d broker duplicates, want %d", fifo, dups, map[bool]int{false: 4, true: 0}[fifo])
		}
	}
}
