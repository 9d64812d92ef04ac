package handler_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

func TestExecutedThenReplayed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(nil)

	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2")))
	b.WantSummary(map[string]int{"records": 2, "executed": 2, "replayed": 0, "batch_item_failures": 0})
	rec, ok := idemtest.MustGet(t, b.store, key("k1"))
	if !ok || rec.Status != idem.StatusCompleted || string(rec.Result) != "result:m1" {
		t.Fatalf("record for k1 = %+v, %v; want COMPLETED with result:m1", rec, ok)
	}

	// A re-send of k1 with a new message id: not run, the stored result
	// goes to the replay hook.
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m3", "k1")))
	if n := b.CallCount("m3"); n != 0 {
		t.Errorf("function ran %d times for the duplicate", n)
	}
	if got, ok := b.Replayed("m3"); !ok || got != "result:m1" {
		t.Errorf("replay hook got %q, %v; want result:m1", got, ok)
	}
	b.WantSummary(map[string]int{"records": 1, "executed": 0, "replayed": 1})
}

func TestInProgressIsReported(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now()
	holdKey(t, b.store, key("k1"), now, now.Add(time.Hour))

	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2")), "m1")
	if n := b.CallCount("m1"); n != 0 {
		t.Errorf("function ran for a key held by another worker")
	}
	if err := b.Failure("m1"); !errors.Is(err, idem.ErrInProgress) || err.Key != key("k1") {
		t.Errorf("failure = %v, want idem.ErrInProgress for k1", err)
	}
	b.WantSummary(map[string]int{"executed": 1, "in_progress": 1, "batch_item_failures": 1})
}

func TestTakeOverAfterLeasePassed(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now()
	holdKey(t, b.store, key("k1"), now.Add(-time.Hour), now.Add(-time.Minute)) // a crashed worker's claim

	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.Msg("m1", "k1")))
	b.WantSummary(map[string]int{"executed": 1, "took_over": 1})
}

func TestFunctionErrorReleasesForRetry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	boom := errors.New("provider unavailable")
	var fail atomic.Bool
	fail.Store(true)
	h := b.wrap(func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if fail.Load() {
			return nil, boom
		}
		return []byte("ok"), nil
	})

	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")), "m1")
	if err := b.Failure("m1"); !errors.Is(err, boom) || err.Op != "run" {
		t.Errorf("failure = %v, want the function's error", err)
	}
	if _, ok := idemtest.MustGet(t, b.store, key("k1")); ok {
		t.Fatal("the failed record's claim was not released")
	}

	fail.Store(false) // the queue delivers it again
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")))
	if n := b.CallCount("m1"); n != 2 {
		t.Errorf("function ran %d times, want 2 (failure, retry)", n)
	}
	b.WantSummary(map[string]int{"executed": 1, "failed": 0})
}

func TestPanicIsRecoveredPerRecord(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if msg.MessageId == "m2" {
			panic("nil map somewhere")
		}
		return []byte("ok"), nil
	})

	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2"), handlerbundle.Msg("m3", "k3")), "m2")
	if err := b.Failure("m2"); !errors.Is(err, handler.ErrPanic) {
		t.Errorf("failure = %v, want ErrPanic", err)
	}
	if _, ok := idemtest.MustGet(t, b.store, key("k2")); ok {
		t.Error("the panicked record's claim was not released")
	}
	b.WantSummary(map[string]int{"executed": 2, "failed": 1})
}

func TestRecordsWithoutAKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		body string
		want error
	}{
		{"absent", `{"prompt":"p"}`, idem.ErrNoKey},
		{"null", `{"idempotency_key":null}`, idem.ErrNoKey},
		{"empty", `{"idempotency_key":""}`, idem.ErrNoKey},
		{"object", `{"idempotency_key":{"a":1}}`, idem.ErrBadKey},
		{"not JSON", `idempotency_key=k1`, request.ErrBadBody},
		{"not an object", `["k1"]`, request.ErrBadBody},
		{"trailing data", `{"idempotency_key":"k1"} {}`, request.ErrBadBody},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			m := handlerbundle.Msg("bad", "")
			m.Body = c.body
			handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), m, handlerbundle.Msg("good", "k1")), "bad")
			if err := b.Failure("bad"); !errors.Is(err, c.want) || err.Op != "key" {
				t.Errorf("failure = %v, want %v", err, c.want)
			}
			if b.CallCount("bad") != 0 || b.store.Len() != 1 {
				t.Errorf("the key-less record ran or was stored")
			}
		})
	}
}

func TestNumberKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := handlerbundle.Msg("m1", "")
	m.Body = `{"idempotency_key":4471}`
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), m))
	if _, ok := idemtest.MustGet(t, b.store, key("4471")); !ok {
		t.Error("no record for the number key 4471")
	}
}

func TestKeylessOptIn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(nil, handler.WithKeyless())
	noKey := handlerbundle.Msg("m1", "")
	noKey.Body = `{"prompt":"p"}`
	notJSON := handlerbundle.Msg("m2", "")
	notJSON.Body = `not json`

	handlerbundle.WantIDs(t, b.Invoke(h, noKey, notJSON), "m2") // bad JSON still fails
	handlerbundle.WantIDs(t, b.Invoke(h, noKey))
	if n := b.CallCount("m1"); n != 2 {
		t.Errorf("key-less record ran %d times, want once per delivery (2)", n)
	}
	if b.store.Len() != 0 {
		t.Error("a key-less record was stored")
	}
	b.WantSummary(map[string]int{"keyless": 1, "executed": 0})
	if n := strings.Count(string(b.Logs.Bytes()), `"msg":"idemq: record comes back"`); n != 1 { // m2's failure only
		t.Errorf("%d failures logged, want 1 (a key-less record is counted, logged at debug):\n%s", n, string(b.Logs.Bytes()))
	}
	if n := strings.Count(string(b.Logs.Bytes()), `"level":"WARN"`); n != 0 {
		t.Errorf("%d warnings logged, want none (m2's body will never hold a key: an error; m1 is logged at debug):\n%s", n, string(b.Logs.Bytes()))
	}
}

func TestKeySources(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	m := handlerbundle.Msg("m1", "ignored")
	m.Body = `{"request":{"id":"r-9"},"prompt":"p"}`
	m.MessageAttributes = map[string]events.SQSMessageAttribute{
		"IdempotencyKey": {DataType: "String", StringValue: str("attr-7")},
	}
	cases := []struct {
		name string
		opt  handler.Option
		want idem.Key
	}{
		{"dotted field", withRequest(request.Identity{KeyField: "request.id"}), key("r-9")},
		{"attribute", withRequest(request.Identity{KeyAttribute: "IdempotencyKey"}), key("attr-7")},
		{"func", withRequest(request.Identity{KeyFunc: func(m events.SQSMessage) (string, error) { return "f-" + m.AWSRegion, nil }}), key("f-eu-west-1")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil, c.opt), m))
			if _, ok := idemtest.MustGet(t, b.store, c.want); !ok {
				t.Errorf("no record for %s", c.want)
			}
		})
	}
	t.Run("key func failures", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		bad := errors.New("no tenant")
		h := b.wrap(nil, handler.WithKeyless(), withRequest(request.Identity{KeyFunc: func(m events.SQSMessage) (string, error) {
			switch m.MessageId {
			case "m1":
				return "", bad // not ErrNoKey: fails even with WithKeyless
			case "m2":
				panic("key func bug")
			}
			return "", nil // no key: keyless
		}}))
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2"), handlerbundle.Msg("m3", "k3")), "m1", "m2")
		if err := b.Failure("m1"); !errors.Is(err, bad) || err.Op != "key" {
			t.Errorf("m1 failure = %v, want the key func's error", err)
		}
		if err := b.Failure("m2"); !errors.Is(err, handler.ErrPanic) {
			t.Errorf("m2 failure = %v, want ErrPanic", err)
		}
		if b.CallCount("m3") != 1 {
			t.Error("the key-less record did not run")
		}
	})
	t.Run("absent attribute", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil, withRequest(request.Identity{KeyAttribute: "Other"})), m), "m1")
		if err := b.Failure("m1"); !errors.Is(err, idem.ErrNoKey) {
			t.Errorf("failure = %v, want ErrNoKey", err)
		}
	})
}

func TestPayloadMismatch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(nil)
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")))

	other := handlerbundle.Msg("m2", "k1")
	other.Body = `{"idempotency_key":"k1","prompt":"another prompt"}`
	handlerbundle.WantIDs(t, b.Invoke(h, other), "m2")
	if err := b.Failure("m2"); !errors.Is(err, idem.ErrPayloadMismatch) {
		t.Errorf("failure = %v, want ErrPayloadMismatch", err)
	}

	// Re-encoded, the same payload matches: the fingerprint is canonical.
	same := handlerbundle.Msg("m3", "k1")
	same.Body = "{ \"prompt\": \"p\",\n \"idempotency_key\": \"k1\" }"
	handlerbundle.WantIDs(t, b.Invoke(h, same))

	// Only the named fields count with FingerprintFields.
	b2 := setup(t)
	h2 := b2.wrap(nil, withRequest(request.Identity{FingerprintFields: []string{"prompt"}}))
	handlerbundle.WantIDs(t, b2.Invoke(h2, handlerbundle.Msg("m1", "k1")))
	traced := handlerbundle.Msg("m2", "k1")
	traced.Body = `{"idempotency_key":"k1","prompt":"p","trace_id":"t-2"}`
	handlerbundle.WantIDs(t, b2.Invoke(h2, traced))
	if _, ok := b2.Replayed("m2"); !ok {
		t.Error("a re-send with a new trace id was not replayed")
	}

	// NoFingerprint replays whatever the payload.
	b3 := setup(t)
	h3 := b3.wrap(nil, withRequest(request.Identity{NoFingerprint: true}))
	handlerbundle.WantIDs(t, b3.Invoke(h3, handlerbundle.Msg("m1", "k1"), other))
	if _, ok := b3.Replayed("m2"); !ok {
		t.Error("without a fingerprint, the copy was not replayed")
	}
}

func TestStoreUnreachable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	down := errors.New("dial tcp: connection refused")
	store := &countingStore{Store: b.store, claimErr: down}

	handlerbundle.WantIDs(t, b.Invoke(b.WrapStore(store, nil), handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2")), "m1", "m2")
	if err := b.Failure("m2"); !errors.Is(err, down) || err.Op != "claim" {
		t.Errorf("failure = %v, want the store's error", err)
	}
	if b.TotalCalls() != 0 {
		t.Error("the function ran without a claim")
	}
	b.WantSummary(map[string]int{"failed": 2, "batch_item_failures": 2})
}

func TestResultNotStored(t *testing.T) {
	t.Parallel()
	// Too large to store: see TestResultTooLarge.
	t.Run("lease lost", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		store := &countingStore{Store: b.store, completeErr: &idem.LeaseLostError{Status: idem.StatusCompleted, Holder: "another", Owner: "this"}}
		// Another worker took the key over and completed it: this
		// delivery is acknowledged (see also ack_test.go).
		handlerbundle.WantIDs(t, b.Invoke(b.WrapStore(store, nil), handlerbundle.Msg("m1", "k1")))
		b.WantSummary(map[string]int{"executed": 1, "superseded": 1})
	})
}

func TestInBatchDuplicates(t *testing.T) {
	t.Parallel()
	t.Run("one execution", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := b.wrap(nil)
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("a", "k1"), handlerbundle.Msg("b", "k2"), handlerbundle.Msg("c", "k1"), handlerbundle.Msg("d", "k1")))
		if n := b.CallCount("a") + b.CallCount("c") + b.CallCount("d"); n != 1 {
			t.Errorf("key k1 ran %d times, want 1", n)
		}
		for _, id := range []string{"c", "d"} {
			if got, _ := b.Replayed(id); got != "result:a" {
				t.Errorf("copy %s got %q, want result:a", id, got)
			}
		}
		b.WantSummary(map[string]int{"executed": 2, "replayed": 2})
	})
	t.Run("failure fails every copy", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		boom := errors.New("boom")
		h := b.wrap(func(_ context.Context, msg events.SQSMessage) ([]byte, error) { return nil, boom })
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("a", "k1"), handlerbundle.Msg("b", "k1")), "a", "b")
		if b.TotalCalls() != 1 {
			t.Errorf("ran %d times, want 1", b.TotalCalls())
		}
		if err := b.Failure("b"); !errors.Is(err, boom) {
			t.Errorf("copy's failure = %v, want the function's error", err)
		}
	})
	t.Run("in progress fails every copy", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		now := time.Now()
		holdKey(t, b.store, key("k1"), now, now.Add(time.Hour))
		handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.Msg("a", "k1"), handlerbundle.Msg("b", "k2"), handlerbundle.Msg("c", "k1")), "a", "c")
		if err := b.Failure("c"); !errors.Is(err, idem.ErrInProgress) {
			t.Errorf("copy's failure = %v, want idem.ErrInProgress", err)
		}
	})
	t.Run("other payload", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		other := handlerbundle.Msg("b", "k1")
		other.Body = `{"idempotency_key":"k1","prompt":"different"}`
		handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil), handlerbundle.Msg("a", "k1"), other), "b")
		if err := b.Failure("b"); !errors.Is(err, idem.ErrPayloadMismatch) {
			t.Errorf("failure = %v, want ErrPayloadMismatch", err)
		}
	})
	t.Run("same message twice", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := b.wrap(func(context.Context, events.SQSMessage) ([]byte, error) { return nil, errors.New("x") })
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("a", "k1"), handlerbundle.Msg("a", "k1")), "a") // reported once
	})
}

func TestDeadlineGuard(t *testing.T) {
	t.Parallel()
	t.Run("nothing starts", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := b.wrap(nil, func(c *handler.Config) { c.DeadlineReserve = 2 * time.Minute })
		// invoke gives a minute: under the reserve.
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2")), "m1", "m2")
		if err := b.Failure("m1"); !errors.Is(err, handler.ErrDeadline) {
			t.Errorf("failure = %v, want ErrDeadline", err)
		}
		if b.TotalCalls() != 0 || b.store.Len() != 0 {
			t.Error("a record started")
		}
		b.WantSummary(map[string]int{"skipped": 2})
	})
	t.Run("stops mid-batch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		clock := newFakeClock(time.Now())
		h := b.wrap(func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
			clock.Advance(10 * time.Minute) // a slow record
			return []byte("ok"), nil
		}, handler.WithIdem(func(c *idem.Config) { c.Clock = clock }), handler.WithConcurrency(1), func(c *handler.Config) { c.DeadlineReserve = 30 * time.Second })
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2"), handlerbundle.Msg("m3", "k3")), "m2", "m3")
		b.WantSummary(map[string]int{"executed": 1, "skipped": 2})
	})
	t.Run("records get a context that ends before the deadline", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		deadline := time.Now().Add(time.Minute)
		var got time.Time
		h := b.wrap(func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
			got, _ = ctx.Deadline()
			return nil, nil
		}, func(c *handler.Config) { c.DeadlineReserve = 10 * time.Second })
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		if _, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{handlerbundle.Msg("m1", "k1")}}); err != nil {
			t.Fatal(err)
		}
		if want := deadline.Add(-5 * time.Second); !got.Equal(want) {
			t.Errorf("record deadline %v, want %v (half the reserve before the invocation's)", got, want)
		}
	})
}

func TestLeaseAndHeartbeat(t *testing.T) {
	t.Parallel()
	t.Run("lease option", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		start := time.Now().Truncate(time.Millisecond)
		clock := newFakeClock(start)
		var lease time.Time
		h := b.wrap(func(context.Context, events.SQSMessage) ([]byte, error) {
			rec, _ := idemtest.MustGet(t, b.store, key("k1"))
			lease = rec.LeaseUntil
			return nil, nil
		}, handler.WithIdem(func(c *idem.Config) { c.Clock = clock }, idem.WithLease(time.Hour)))
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")))
		if want := start.Add(time.Hour + idem.DefaultClockSkew); !lease.Equal(want) {
			t.Errorf("lease until %v, want %v (the lease plus the clock-skew bound)", lease, want)
		}
	})
	t.Run("heartbeat extends the lease", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		h := b.wrap(func(ctx context.Context, _ events.SQSMessage) ([]byte, error) {
			rec, _ := idemtest.MustGet(t, b.store, key("k1"))
			first := rec.LeaseUntil
			for ctx.Err() == nil { // until a beat moves the lease
				if rec, _ := idemtest.MustGet(t, b.store, key("k1")); !rec.LeaseUntil.Equal(first) {
					return []byte("extended"), nil
				}
				runtime.Gosched()
			}
			return nil, ctx.Err()
		}, handler.WithIdem(idem.WithHeartbeat(time.Millisecond)))
		handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")))
	})
}

func TestConcurrencyIsBounded(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var running, most atomic.Int32
	h := b.wrap(func(context.Context, events.SQSMessage) ([]byte, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		runtime.Gosched()
		return nil, nil
	}, handler.WithConcurrency(3))
	var msgs []events.SQSMessage
	for i := range 40 {
		msgs = append(msgs, handlerbundle.Msg(fmt.Sprintf("m%d", i), fmt.Sprintf("k%d", i)))
	}
	handlerbundle.WantIDs(t, b.Invoke(h, msgs...))
	if m := most.Load(); m > 3 {
		t.Errorf("%d records ran at once, want at most 3", m)
	}
	if b.TotalCalls() != 40 {
		t.Errorf("ran %d records, want 40", b.TotalCalls())
	}
}

func TestFailuresInInputOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		if msg.MessageId[0]%2 == 1 {
			return nil, errors.New("odd")
		}
		return nil, nil
	})
	var msgs []events.SQSMessage
	var want []string
	for i := range 30 {
		id := string(rune('A' + i))
		msgs = append(msgs, handlerbundle.Msg(id, id))
		if id[0]%2 == 1 {
			want = append(want, id)
		}
	}
	handlerbundle.WantIDs(t, b.Invoke(h, msgs...), want...)
}

func TestFailedRecordWithoutMessageID(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := handlerbundle.Msg("", "")
	m.Body = `{}`
	resp, err := b.wrap(nil)(context.Background(), events.SQSEvent{Records: []events.SQSMessage{m, handlerbundle.Msg("m2", "k2")}})
	if err == nil {
		t.Fatalf("no error for a failed record without a message id (response %v)", resp)
	}
	// A succeeded record without a message id needs no report.
	resp, err = b.wrap(nil)(context.Background(), events.SQSEvent{Records: []events.SQSMessage{handlerbundle.Msg("", "k3")}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Errorf("got %v, %v; want an empty response", resp, err)
	}
}

func TestEmptyBatch(t *testing.T) {
	t.Parallel()
	b := setup(t)
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil)))
	b.WantSummary(map[string]int{"records": 0})
}

func TestReplayHookFailure(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(nil)
	handlerbundle.WantIDs(t, b.Invoke(h, handlerbundle.Msg("m1", "k1")))
	hookErr := errors.New("reply queue down")
	failing := must(handler.New(b.store, func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil },
		handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace}),
		handler.WithLogger(slog.New(slog.DiscardHandler)),
		handler.WithReplayHook(func(context.Context, events.SQSMessage, []byte) error { return hookErr }),
		handler.WithFailureHook(func(_ context.Context, _ events.SQSMessage, err error) {
			if !errors.Is(err, hookErr) || !errors.Is(err, handler.ErrReplayHook) {
				t.Errorf("failure = %v, want the hook's error", err)
			}
		})))
	handlerbundle.WantIDs(t, b.Invoke(failing, handlerbundle.Msg("m2", "k1")), "m2")
}

// Outside Lambda, without a namespace, the program's name is the
// namespace: the handler works, and a warning says so.
func TestNamespaceOutsideLambda(t *testing.T) {
	t.Parallel()
	store := must(memstore.New())
	var logs bytes.Buffer
	calls := 0
	h := must(handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) {
		calls++
		return []byte("done"), nil
	}, handler.WithLogger(slog.New(slog.NewTextHandler(&logs, nil)))))
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m1", Body: `{"idempotency_key":"k1"}`},
		{MessageId: "m2", Body: `{"idempotency_key":"k1"}`},
	}}
	for range 2 {
		resp, err := h(context.Background(), ev)
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("response %+v, %v; want no failures", resp, err)
		}
	}
	if calls != 1 {
		t.Errorf("the function ran %d times, want 1", calls)
	}
	prog := strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	if !strings.Contains(logs.String(), "no namespace") || !strings.Contains(logs.String(), "namespace="+prog) {
		t.Errorf("log %q: want a warning naming the namespace %q", logs.String(), prog)
	}
	claim, err := store.Claim(context.Background(), idem.ClaimRequest{Key: idem.Key(prog + "#k1"), Owner: "probe",
		Now: time.Now(), LeaseUntil: time.Now().Add(time.Minute), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil || claim.String() != string(idem.StatusCompleted) {
		t.Errorf("record under %q#k1: %+v, %v; want it completed", prog, claim, err)
	}
}

func TestWiringErrors(t *testing.T) {
	t.Parallel()
	store := must(memstore.New())
	fn := func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil }
	for _, tc := range []struct {
		name, field string
		store       idem.Store
		fn          handler.Func
		opt         handler.Option
	}{
		{"nil store", "store", nil, fn, nil},
		{"nil func", "fn", store, nil, nil},
		{"negative concurrency", "Concurrency", store, fn, handler.WithConcurrency(-1)},
		{"bad key field", "request.KeyField", store, fn, handler.WithRequest(request.Identity{KeyField: "request..id"})},
		{"bad fp field", "request.FingerprintFields", store, fn, handler.WithRequest(request.Identity{FingerprintFields: []string{"prompt", `a\x`}})},
		{"two key sources", "request.KeyAttribute", store, fn, func(c *handler.Config) { c.Request.KeyField, c.Request.KeyAttribute = "a", "b" }},
		{"no fingerprint with fields", "request.NoFingerprint", store, fn, func(c *handler.Config) {
			handler.WithRequest(request.Identity{FingerprintFields: []string{"a"}, NoFingerprint: true})(c)
		}},
		{"cache size", "CacheEntries", store, fn, func(c *handler.Config) { c.CacheEntries, c.CacheBytes = 0, 1 }},
		{"EMF without a namespace", "EMFNamespace", store, fn, handler.WithEMF(io.Discard, "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []handler.Option{handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace})}
			if tc.opt != nil {
				opts = append(opts, tc.opt)
			}
			_, err := handler.New(tc.store, tc.fn, opts...)
			pkg, field, ok := strings.Cut(tc.field, ".")
			if !ok {
				pkg, field = "handler", tc.field
			}
			if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Package != pkg || bad.Field != field {
				t.Errorf("err %v, want an *idem.ConfigError naming %s's %s", err, pkg, field)
			}
		})
	}
}

// A Config says where the key comes from once: two sources are refused,
// by name, whether set in the Config or by two options.
func TestConfigKeySources(t *testing.T) {
	t.Parallel()
	c := handler.Config{Request: request.Identity{KeyField: "id", KeyFunc: func(events.SQSMessage) (string, error) { return "k", nil }}}
	if bad, ok := errors.AsType[*idem.ConfigError](c.Validate()); !ok || bad.Field != "KeyFunc" {
		t.Errorf("KeyField and KeyFunc: %v, want an *idem.ConfigError naming KeyFunc", c.Validate())
	}
	if err := (handler.Config{}).Validate(); err != nil {
		t.Errorf("the zero Config: %v, want it valid", err)
	}
	if err := (handler.Config{DeadlineReserve: -1, Concurrency: 3}).Validate(); err != nil {
		t.Errorf("the guard off: %v", err)
	}
	c = handler.Config{}
	handler.WithRequest(request.Identity{KeyField: "id", KeyAttribute: "key"})(&c)
	if bad, ok := errors.AsType[*idem.ConfigError](c.Validate()); !ok || bad.Field != "KeyAttribute" {
		t.Errorf("a key field and a key attribute: %v; want an *idem.ConfigError naming KeyAttribute", c.Validate())
	}
	c = handler.Config{}
	handler.WithRequest(request.Identity{Namespace: "ns", KeyFields: []string{"a", "b"}})(&c)
	if c.Request.Namespace != "ns" || len(c.Request.KeyFields) != 2 || c.Validate() != nil {
		t.Errorf("WithRequest: %+v, %v", c.Request, c.Validate())
	}
}
