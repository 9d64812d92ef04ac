package durable_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// scriptedInvoker starts every execution but those named in fail (a
// throttled start) or panics (a client that panics). It is safe for
// concurrent use.
type scriptedInvoker struct {
	fail, panics map[string]bool
	mu           sync.Mutex
	started      []string
}

func (s *scriptedInvoker) Invoke(_ context.Context, in *lambda.InvokeInput, _ ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	name := aws.ToString(in.DurableExecutionName)
	switch {
	case s.panics[name]:
		panic("the client panicked")
	case s.fail[name]:
		return nil, &types.TooManyRequestsException{Message: aws.String("Rate exceeded")}
	}
	s.mu.Lock()
	s.started = append(s.started, name)
	s.mu.Unlock()
	return &lambda.InvokeOutput{StatusCode: 202, DurableExecutionArn: aws.String("arn:aws:lambda:us-east-1:123456789012:function:summarise:prod/durable-execution/" + name)}, nil
}

// answer is what one side made of a batch: the response, the error's
// class, and per message the lines "idemq: record comes back" logged for
// it (level, op, key), and the summary's counts.
type answer struct {
	listed  []string
	err     string // "", "ErrBatchFailed" or "other"
	back    map[string][]string
	summary map[string]float64
}

func answerOf(resp events.SQSEventResponse, err error, logs *bytes.Buffer) (answer, error) {
	a := answer{back: map[string][]string{}}
	for _, f := range resp.BatchItemFailures {
		a.listed = append(a.listed, f.ItemIdentifier)
	}
	switch {
	case errors.Is(err, handler.ErrBatchFailed):
		a.err = "ErrBatchFailed"
	case err != nil:
		a.err = "other"
	}
	for line := range bytes.Lines(logs.Bytes()) {
		var l map[string]any
		if err := json.Unmarshal(line, &l); err != nil {
			return a, err
		}
		switch l["msg"] {
		case "idemq: record comes back":
			id := fmt.Sprint(l["message_id"])
			a.back[id] = append(a.back[id], fmt.Sprintf("%v %v %v", l["level"], l["op"], l["key"]))
		case "idemq: batch":
			a.summary = map[string]float64{}
			for k, v := range l {
				if n, ok := v.(float64); ok {
					a.summary[k] = n
				}
			}
		}
	}
	return a, nil
}

// The dispatcher answers a batch as the handler does, from the handler's
// own code: for a FIFO failure, a panic, a record without a key, a batch
// whose every record failed and a failed record without a message id, the
// same messages come back, each logged at the same level and stage under
// the same record key (the Identity's, shared), the
// invocation returns the same, and the summary lines agree (a start the
// dispatcher made counted as dispatched where the handler's execution
// counts as executed).
func TestAnswersAsTheHandler(t *testing.T) {
	t.Parallel()
	fifo := func(m events.SQSMessage) events.SQSMessage {
		m.EventSourceARN = "arn:aws:sqs:us-east-1:123456789012:requests.fifo"
		m.Attributes = map[string]string{"MessageGroupId": "g"}
		return m
	}
	noKey := msg("m2", "", "p")
	for _, tc := range []struct {
		name          string
		batch         []events.SQSMessage
		fail, panics  []string
		listed        []string
		invocationErr string
	}{
		{"a FIFO failure", []events.SQSMessage{fifo(msg("m1", "k1", "p")), fifo(msg("m2", "k2", "p")), fifo(msg("m3", "k3", "p"))},
			[]string{"k2"}, nil, []string{"m2", "m3"}, ""},
		{"a panic", []events.SQSMessage{msg("m1", "k1", "p"), msg("m2", "k2", "p")}, nil, []string{"k2"}, []string{"m2"}, ""},
		{"a record without a key", []events.SQSMessage{msg("m1", "k1", "p"), noKey}, nil, nil, []string{"m2"}, ""},
		{"every record failed", []events.SQSMessage{msg("m1", "k1", "p"), noKey}, []string{"k1"}, nil, []string{"m1", "m2"}, "ErrBatchFailed"},
		{"a failed record without a message id", []events.SQSMessage{msg("m1", "k1", "p"), msg("", "k2", "p")}, []string{"k2"}, nil, nil, "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hLogs, dLogs bytes.Buffer
			fn := func(_ context.Context, m events.SQSMessage) ([]byte, error) {
				k := keyOf(t, m)
				switch {
				case slices.Contains(tc.panics, k):
					panic("the function panicked")
				case slices.Contains(tc.fail, k):
					return nil, errors.New("the provider answered 429")
				}
				return []byte("ok"), nil
			}
			h := must(handler.New(must(memstore.New()), fn, handler.WithRequest(request.Identity{Namespace: namespace}),
				handler.WithLogger(slog.New(slog.NewJSONHandler(&hLogs, nil)))))
			inv := &scriptedInvoker{fail: names(tc.fail), panics: names(tc.panics)}
			d := must(durable.New(inv, function, inNamespace, durable.WithLogger(slog.New(slog.NewJSONHandler(&dLogs, nil)))))

			ev := events.SQSEvent{Records: tc.batch}
			hResp, hErr := h(context.Background(), ev)
			dResp, dErr := d.Handle(context.Background(), ev)
			ha, err := answerOf(hResp, hErr, &hLogs)
			if err != nil {
				t.Fatal(err)
			}
			da, err := answerOf(dResp, dErr, &dLogs)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ha.listed, tc.listed) || !slices.Equal(da.listed, tc.listed) {
				t.Errorf("listed: handler %v, dispatcher %v; want %v", ha.listed, da.listed, tc.listed)
			}
			if ha.err != tc.invocationErr || da.err != tc.invocationErr {
				t.Errorf("the invocation: handler %v, dispatcher %v; want %q", hErr, dErr, tc.invocationErr)
			}
			if fmt.Sprint(ha.back) != fmt.Sprint(da.back) {
				t.Errorf("records that come back, as logged (level, op, key): handler %v, dispatcher %v", ha.back, da.back)
			}
			if ha.summary == nil || da.summary == nil {
				t.Fatalf("no summary line: handler %v, dispatcher %v", ha.summary, da.summary)
			}
			ha.summary["dispatched"], ha.summary["executed"], ha.summary["fresh"] = ha.summary["executed"], 0, 0
			if fmt.Sprint(ha.summary) != fmt.Sprint(da.summary) {
				t.Errorf("summary: handler %v, dispatcher %v", ha.summary, da.summary)
			}
		})
	}
}

// keyOf is the key a test message's body holds.
func keyOf(t *testing.T, m events.SQSMessage) string {
	t.Helper()
	var b struct {
		Key string `json:"idempotency_key"`
	}
	if err := json.Unmarshal([]byte(m.Body), &b); err != nil {
		t.Error(err)
	}
	return b.Key
}

// names is the set of the execution names of keys in namespace.
func names(keys []string) map[string]bool {
	s := map[string]bool{}
	for _, k := range keys {
		s[name(k)] = true
	}
	return s
}

// Config.NoBatchError keeps Handle's invocation succeeding when no start is
// accepted; the same messages come back.
func TestNoBatchError(t *testing.T) {
	t.Parallel()
	inv := &scriptedInvoker{fail: names([]string{"k1"})}
	d := must(durable.New(inv, function, inNamespace, quiet, durable.Option(func(c *durable.Config) { c.NoBatchError = true })))
	resp, err := d.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg("m1", "k1", "p")}})
	if err != nil || len(resp.BatchItemFailures) != 1 {
		t.Errorf("response %+v, %v; want m1 listed and no error", resp, err)
	}
}
