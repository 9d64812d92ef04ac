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
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/handlerbundle"
)

// A batch none of whose messages is acknowledged, one record at least
// having failed, fails the invocation with ErrBatchFailed, wrapping the
// first failure, and its response still lists every message: the error
// brings back no other. WithoutBatchError keeps the invocation
// succeeding, with the same response. A batch with a message acknowledged,
// one that only waits (in progress elsewhere) and an empty one succeed.
func TestBatchError(t *testing.T) {
	t.Parallel()
	invoke := func(t *testing.T, h handler.Handler, msgs ...events.SQSMessage) ([]string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		resp, err := h(ctx, events.SQSEvent{Records: msgs})
		return handlerbundle.IDs(resp), err
	}
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
		{"every record failed, WithoutBatchError", []handler.Option{handler.WithoutBatchError()}, []events.SQSMessage{handlerbundle.Msg("m1", "bad1")}, []string{"m1"}, false, ""},
		{"one acknowledged", nil, []events.SQSMessage{handlerbundle.Msg("m1", "bad1"), handlerbundle.Msg("m2", "k2")}, []string{"m1"}, false, ""},
		{"in progress elsewhere", nil, []events.SQSMessage{handlerbundle.Msg("m1", "held")}, []string{"m1"}, false, ""},
		{"empty", nil, nil, []string{}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			now := time.Now()
			if _, err := b.store.Claim(context.Background(), idem.ClaimRequest{Key: key("held"), Owner: "peer", Now: now,
				LeaseUntil: now.Add(time.Hour), ExpiresAt: now.Add(24 * time.Hour)}); err != nil {
				t.Fatal(err)
			}
			fn := func(_ context.Context, m events.SQSMessage) ([]byte, error) {
				if strings.Contains(m.Body, `"bad`) {
					return nil, errors.New("the provider answered 500")
				}
				return []byte("ok"), nil
			}
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
			b := setup(t)
			now := time.Now()
			if _, err := b.store.Claim(context.Background(), idem.ClaimRequest{Key: key("held"), Owner: "peer", Now: now,
				LeaseUntil: now.Add(time.Hour), ExpiresAt: now.Add(24 * time.Hour)}); err != nil {
				t.Fatal(err)
			}
			fn := func(_ context.Context, m events.SQSMessage) ([]byte, error) {
				if strings.Contains(m.Body, `"bad`) {
					return nil, errors.New("the provider answered 500")
				}
				return []byte("ok"), nil
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			resp, err := b.wrap(fn, tc.opt)(ctx, events.SQSEvent{Records: tc.msgs})
			if got := handlerbundle.IDs(resp); !slices.Equal(got, tc.listed) {
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
