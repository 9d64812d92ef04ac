package handler_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
)

// A batch none of whose messages is acknowledged, one record at least
// having failed, fails the invocation with ErrBatchFailed, wrapping the
// first failure, and its response still lists every message: the error
// brings back no other. Config.NoBatchError keeps the invocation
// succeeding, with the same response. A batch with a message acknowledged,
// one that only waits (in progress elsewhere) and an empty one succeed.
func TestBatchError(t *testing.T) {
	t.Parallel()
	fifo := func(id, k string) events.SQSMessage { return handlerbundle.FIFOMsg(id, k, "g") }
	for _, tc := range []struct {
		name    string
		opts    []handler.Option
		msgs    []events.SQSMessage
		listed  []string
		failed  bool
		firstID string
	}{
		{"every record failed", nil, []events.SQSMessage{handlerbundle.Msg("m1", "bad1"), handlerbundle.Msg("m2", "bad2")}, []string{"m1", "m2"}, true, "m1"},
		{"a FIFO batch whose first record failed", nil, []events.SQSMessage{fifo("m1", "bad1"), fifo("m2", "k2"), fifo("m3", "k3")}, []string{"m1", "m2", "m3"}, true, "m1"},
		{"a record without a key", nil, []events.SQSMessage{handlerbundle.Msg("m1", "")}, []string{"m1"}, true, "m1"},
		{"every record failed, Config.NoBatchError", []handler.Option{func(c *handler.Config) { c.NoBatchError = true }}, []events.SQSMessage{handlerbundle.Msg("m1", "bad1")}, []string{"m1"}, false, ""},
		{"one acknowledged", nil, []events.SQSMessage{handlerbundle.Msg("m1", "bad1"), handlerbundle.Msg("m2", "k2")}, []string{"m1"}, false, ""},
		{"in progress elsewhere", nil, []events.SQSMessage{handlerbundle.Msg("m1", "held")}, []string{"m1"}, false, ""},
		{"empty", nil, nil, []string{}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, fn := heldAndFailing(t)
			got, err := invoke(t, b.wrap(fn, tc.opts...), tc.msgs...)
			if !slices.Equal(got, tc.listed) {
				t.Errorf("listed %v, want %v", got, tc.listed)
			}
			if !tc.failed {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			var re *handler.RecordError
			if !errors.Is(err, handler.ErrBatchFailed) || !errors.As(err, &re) || re.MessageID != tc.firstID {
				t.Fatalf("err = %v, want handler.ErrBatchFailed wrapping %s's RecordError", err, tc.firstID)
			}
		})
	}
}

// A batch from a queue whose mapping lacks ReportBatchItemFailures
// (Config.WholeBatchQueues) with a record not acknowledged fails the
// invocation, whatever the record's reason, so that Lambda brings the
// whole batch back rather than delete it; from another queue, or with
// every record acknowledged, the answer is the partial response alone.
func TestWholeBatchQueues(t *testing.T) {
	t.Parallel()
	whole := func(arns ...string) handler.Option {
		return func(c *handler.Config) { c.WholeBatchQueues = arns }
	}
	for _, tc := range []struct {
		name    string
		opt     handler.Option
		msgs    []events.SQSMessage
		listed  []string
		failed  bool
		firstID string
	}{
		{"one acknowledged, one failed", whole(handlerbundle.StandardARN), []events.SQSMessage{handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "bad2")}, []string{"m2"}, true, "m2"},
		{"in progress elsewhere", whole(handlerbundle.StandardARN), []events.SQSMessage{handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "held")}, []string{"m2"}, true, "m2"},
		{"every record acknowledged", whole(handlerbundle.StandardARN), []events.SQSMessage{handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "k2")}, []string{}, false, ""},
		{"another queue's mapping lacks it", whole("arn:aws:sqs:eu-west-1:123456789012:other"), []events.SQSMessage{handlerbundle.Msg("m1", "k1"), handlerbundle.Msg("m2", "bad2")}, []string{"m2"}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, fn := heldAndFailing(t)
			got, err := invoke(t, b.wrap(fn, tc.opt), tc.msgs...)
			if !slices.Equal(got, tc.listed) {
				t.Errorf("listed %v, want %v", got, tc.listed)
			}
			if !tc.failed {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			var re *handler.RecordError
			if err == nil || !errors.As(err, &re) || re.MessageID != tc.firstID || !strings.Contains(err.Error(), "ReportBatchItemFailures") {
				t.Fatalf("err = %v, want an error naming the mapping's missing ReportBatchItemFailures and wrapping %s's RecordError", err, tc.firstID)
			}
		})
	}
}

// The invocation's error says how many records failed out of how many,
// and the first failure names its message, then the stage and the key
// where its cause does not: exact texts, as a reader of the log sees
// them.
func TestBatchErrorText(t *testing.T) {
	t.Parallel()
	const provider = "the provider answered 500"
	run := func(id, k string) string {
		return `handler: message ` + id + `: idem: run key "` + string(key(k)) + `": ` + provider
	}
	noKey := `handler: message m-bad: reading its key: idem: no idempotency key: body field "idempotency_key" is empty`
	for _, tc := range []struct {
		name string
		msgs []events.SQSMessage
		want string
	}{
		{"one record, without a key", []events.SQSMessage{handlerbundle.Msg("m-bad", "")},
			"handler: no message of the batch is acknowledged: its one record failed: " + noKey},
		{"one record, failed", []events.SQSMessage{handlerbundle.Msg("m1", "bad1")},
			"handler: no message of the batch is acknowledged: its one record failed: " + run("m1", "bad1")},
		{"every record failed", []events.SQSMessage{handlerbundle.Msg("m1", "bad1"), handlerbundle.Msg("m2", "bad2"), handlerbundle.Msg("m-bad", "")},
			"handler: no message of the batch is acknowledged: all 3 records failed; the first: " + run("m1", "bad1")},
		{"one failed, one in progress", []events.SQSMessage{handlerbundle.Msg("m1", "held"), handlerbundle.Msg("m2", "bad2")},
			"handler: no message of the batch is acknowledged: 1 of 2 records failed, and the other one was not acknowledged either; the first failure: " + run("m2", "bad2")},
		{"two failed, two in progress", []events.SQSMessage{handlerbundle.Msg("m1", "held"), handlerbundle.Msg("m2", "bad2"), handlerbundle.Msg("m3", "held"), handlerbundle.Msg("m-bad", "")},
			"handler: no message of the batch is acknowledged: 2 of 4 records failed, and the other 2 were not acknowledged either; the first failure: " + run("m2", "bad2")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, _ := heldAndFailing(t)
			h := b.wrap(func(context.Context, events.SQSMessage) ([]byte, error) { return nil, errors.New(provider) }, handler.WithConcurrency(1))
			_, err := h(context.Background(), events.SQSEvent{Records: tc.msgs})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error\n%v\nwant\n%s", err, tc.want)
			}
		})
	}
}

// A RecordError names the message first, then the stage and the key,
// unless its cause names them.
func TestRecordErrorText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  handler.RecordError
		want string
	}{
		{handler.RecordError{MessageID: "m-1", Key: "ns#k", Op: idem.OpRun, Err: &idem.Error{Op: idem.OpRun, Key: "ns#k", Err: errors.New("boom")}},
			`handler: message m-1: idem: run key "ns#k": boom`},
		{handler.RecordError{MessageID: "m-bad", Op: handler.OpKey, Err: idem.ErrNoKey},
			`handler: message m-bad: reading its key: idem: no idempotency key`},
		{handler.RecordError{MessageID: "m-2", Key: "ns#k", Op: idem.OpRun, Err: handler.ErrPanic},
			`handler: message m-2: run key "ns#k": handler: panic`},
		{handler.RecordError{MessageID: "m-3", Op: idem.OpRun, Err: handler.ErrNoOutcome},
			`handler: message m-3: run: handler: record ended without an outcome`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// heldAndFailing is a bundle whose key "held" another worker holds for an
// hour, and a function that fails every record whose body holds "bad".
func heldAndFailing(t *testing.T) (*bundle, handler.Func) {
	t.Helper()
	b := setup(t)
	now := time.Now()
	holdKey(t, b.store, key("held"), now, now.Add(time.Hour))
	return b, func(_ context.Context, m events.SQSMessage) ([]byte, error) {
		if strings.Contains(m.Body, `"bad`) {
			return nil, errors.New("the provider answered 500")
		}
		return []byte("ok"), nil
	}
}

// invoke runs h over msgs and returns the ids its response lists.
func invoke(t *testing.T, h handler.Handler, msgs ...events.SQSMessage) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := h(ctx, events.SQSEvent{Records: msgs})
	return handlerbundle.IDs(resp), err
}
