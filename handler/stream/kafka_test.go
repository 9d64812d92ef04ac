package stream_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/stream"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// krec is one Kafka record: its topic, partition and offset, its Kafka
// key ("" for none) and the idempotency key in its value.
type krec struct {
	topic     string
	partition int64
	offset    int64
	kkey, key string
}

func (r krec) tp() string { return fmt.Sprintf("%s-%d", r.topic, r.partition) }
func (r krec) id() string { return fmt.Sprintf("%s@%d", r.tp(), r.offset) }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// kafkaEvent files recs under their topic-partitions, in the order given.
func kafkaEvent(recs ...krec) events.KafkaEvent {
	e := events.KafkaEvent{
		EventSource:      "aws:kafka",
		EventSourceARN:   "arn:aws:kafka:us-east-1:000000000000:cluster/streamtest/00000000-0000-0000-0000-000000000000-1",
		BootstrapServers: "b-1.streamtest.kafka.us-east-1.amazonaws.com:9098",
		Records:          map[string][]events.KafkaRecord{},
	}
	for _, r := range recs {
		kr := events.KafkaRecord{
			Topic: r.topic, Partition: r.partition, Offset: r.offset,
			Timestamp:     events.MilliSecondsEpochTime{Time: time.UnixMilli(1765000000000)},
			TimestampType: "CREATE_TIME",
			Value:         b64(fmt.Sprintf(`{"idempotency_key":%q}`, r.key)),
			Headers:       []map[string]events.JSONNumberBytes{},
		}
		if r.kkey != "" {
			kr.Key = b64(r.kkey)
		}
		e.Records[r.tp()] = append(e.Records[r.tp()], kr)
	}
	return e
}

// kafkaFailures lists a response's batch item failures as
// "topic-partition@offset".
func kafkaFailures(resp stream.KafkaEventResponse) []string {
	var ids []string
	for _, f := range resp.BatchItemFailures {
		ids = append(ids, fmt.Sprintf("%s@%d", f.ItemIdentifier.Partition, f.ItemIdentifier.Offset))
	}
	return ids
}

// topic is a batch over two partitions of one topic, keys shared across
// the partitions' records.
var topic = []krec{
	{"orders", 0, 10, "A", "a1"},
	{"orders", 0, 11, "B", "b1"},
	{"orders", 0, 12, "A", "a2"},
	{"orders", 1, 40, "C", "c1"},
	{"orders", 1, 41, "", "c2"},
	{"orders", 1, 42, "C", "c3"},
}

func TestKafkaCheckpointPerPartition(t *testing.T) {
	t.Parallel()
	w := newWork()
	w.fails["b1"] = 1
	s, _ := newHandlers(t, w)
	resp, err := s.Kafka(t.Context(), kafkaEvent(topic...))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kafkaFailures(resp), []string{"orders-0@11", "orders-0@12"}; !slices.Equal(got, want) {
		t.Fatalf("batch item failures %v; want %v: partition 0 from its failure on, nothing of partition 1", got, want)
	}
	if n := w.count("a2"); n != 0 {
		t.Errorf("a2 (another Kafka key, but after b1 in its partition) ran %d times; want 0: a partition runs in offset order", n)
	}
	for _, k := range []string{"a1", "c1", "c2", "c3"} {
		if n := w.count(k); n != 1 {
			t.Errorf("%s ran %d times; want 1 (partition 1 goes on whatever partition 0 does)", k, n)
		}
	}

	// Lambda sends partition 0 again from offset 11.
	resp, err = s.Kafka(t.Context(), kafkaEvent(topic[1:3]...))
	if err != nil {
		t.Fatal(err)
	}
	if got := kafkaFailures(resp); len(got) != 0 {
		t.Fatalf("retry: batch item failures %v; want none", got)
	}
	if got, want := partitionCalls(w.calls, "orders-0"), []string{"orders-0@10", "orders-0@11", "orders-0@11", "orders-0@12"}; !slices.Equal(got, want) {
		t.Errorf("partition 0's calls %v; want %v", got, want)
	}
}

// partitionCalls is the calls of one topic-partition, in order.
func partitionCalls(calls []string, tp string) []string {
	var out []string
	for _, c := range calls {
		if strings.HasPrefix(c, tp+"@") {
			out = append(out, c)
		}
	}
	return out
}

func TestKafkaResponseJSON(t *testing.T) {
	t.Parallel()
	w := newWork()
	w.fails["c3"] = 1
	s, _ := newHandlers(t, w)
	resp, err := s.Kafka(t.Context(), kafkaEvent(topic...))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(raw), `{"batchItemFailures":[{"itemIdentifier":{"partition":"orders-1","offset":42}}]}`; got != want {
		t.Errorf("response\n%s\nwant\n%s", got, want)
	}
	resp, err = s.Kafka(t.Context(), kafkaEvent(topic...))
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ = json.Marshal(resp); string(raw) != `{"batchItemFailures":[]}` {
		t.Errorf("all done: %s; want an empty list", raw)
	}
}

func TestKafkaMessage(t *testing.T) {
	t.Parallel()
	r := &seen{}
	h, err := handler.New(storeFor(t), r.fn, handler.WithRequest(request.Identity{Namespace: namespace, KeyAttribute: "idempotency-key"}), quiet())
	if err != nil {
		t.Fatal(err)
	}
	e := kafkaEvent(krec{"pay-ments.eu", 3, 7, "order-9", "ignored"})
	rec := &e.Records["pay-ments.eu-3"][0]
	rec.Value = b64("plain text, not JSON")
	rec.Headers = []map[string]events.JSONNumberBytes{
		{"idempotency-key": []byte("req-1")},
		{"trace": []byte{0xff, 0x00}},
		{"idempotency-key": []byte("req-2")},
	}
	resp, err := stream.New(h).Kafka(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 0 || len(r.msgs) != 1 {
		t.Fatalf("failures %v, %d calls; want none and 1", kafkaFailures(resp), len(r.msgs))
	}
	m := r.msgs[0]
	if m.MessageId != "pay-ments.eu-3@7" || m.Body != "plain text, not JSON" {
		t.Errorf("message id %q, body %q", m.MessageId, m.Body)
	}
	if g, k := m.Attributes["MessageGroupId"], m.Attributes["kafkaKey"]; g != "pay-ments.eu-3" || k != "order-9" {
		t.Errorf("group %q, kafkaKey %q; want pay-ments.eu-3 and order-9", g, k)
	}
	if a := m.MessageAttributes["idempotency-key"]; a.DataType != "String" || a.StringValue == nil || *a.StringValue != "req-1" {
		t.Errorf("header idempotency-key %+v; want the String req-1 (its first value)", a)
	}
	if a := m.MessageAttributes["trace"]; a.DataType != "Binary" || !slices.Equal(a.BinaryValue, []byte{0xff, 0x00}) {
		t.Errorf("header trace %+v; want Binary ff00", a)
	}
	if m.EventSource != "aws:kafka" || !strings.HasPrefix(m.EventSourceARN, "arn:aws:kafka:") {
		t.Errorf("event source %q, ARN %q", m.EventSource, m.EventSourceARN)
	}
}

// A partition's records run in offset order, however the event lists
// them; a record without a key has no kafkaKey attribute.
func TestKafkaOffsetOrder(t *testing.T) {
	t.Parallel()
	r := &seen{}
	h, err := handler.New(storeFor(t), r.fn, handler.WithRequest(request.Identity{Namespace: namespace}), handler.WithConcurrency(1), quiet())
	if err != nil {
		t.Fatal(err)
	}
	e := kafkaEvent(krec{"t", 0, 9, "", "x9"}, krec{"t", 0, 3, "", "x3"}, krec{"t", 0, 5, "", "x5"})
	if _, err := stream.New(h).Kafka(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range r.msgs {
		ids = append(ids, m.MessageId)
		if _, ok := m.Attributes["kafkaKey"]; ok {
			t.Errorf("%s: a kafkaKey attribute for a record without a key", m.MessageId)
		}
	}
	if want := []string{"t-0@3", "t-0@5", "t-0@9"}; !slices.Equal(ids, want) {
		t.Errorf("ran %v; want %v", ids, want)
	}
}

func TestKafkaInProgressKeyIsTheCheckpoint(t *testing.T) {
	t.Parallel()
	w := newWork()
	s, store := newHandlers(t, w)
	key, err := idem.ClientKey(namespace, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := handlertest.Hold(t.Context(), store, key, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	resp, err := s.Kafka(t.Context(), kafkaEvent(topic...))
	if err != nil {
		t.Fatalf("a key in progress must be a checkpoint, not an error: %v", err)
	}
	if got, want := kafkaFailures(resp), []string{"orders-1@40", "orders-1@41", "orders-1@42"}; !slices.Equal(got, want) {
		t.Fatalf("batch item failures %v; want %v", got, want)
	}
	if n := w.count("a2"); n != 1 {
		t.Errorf("a2 (partition 0) ran %d times; want 1", n)
	}
}

func TestKafkaRefusesWhatItCannotVouchFor(t *testing.T) {
	t.Parallel()
	s, _ := newHandlers(t, newWork())
	mutate := func(f func(e *events.KafkaEvent)) events.KafkaEvent {
		e := kafkaEvent(topic...)
		f(&e)
		return e
	}
	cases := map[string]events.KafkaEvent{
		"a value not base64": mutate(func(e *events.KafkaEvent) { e.Records["orders-1"][1].Value = "not base64!" }),
		"a key not base64":   mutate(func(e *events.KafkaEvent) { e.Records["orders-0"][0].Key = "%%" }),
		"an offset twice":    mutate(func(e *events.KafkaEvent) { e.Records["orders-0"][2].Offset = 10 }),
		"a negative offset":  mutate(func(e *events.KafkaEvent) { e.Records["orders-0"][0].Offset = -1 }),
		"a record filed under another partition": mutate(func(e *events.KafkaEvent) {
			e.Records["orders-1"][0].Partition = 0
		}),
		"a record without a topic": mutate(func(e *events.KafkaEvent) { e.Records["orders-0"][1].Topic = "" }),
	}
	for name, e := range cases {
		w := newWork()
		s, _ := newHandlers(t, w)
		if _, err := s.Kafka(t.Context(), e); err == nil {
			t.Errorf("%s: no error; want the whole batch back", name)
		}
		if len(w.calls) != 0 {
			t.Errorf("%s: %d calls before the error; want none", name, len(w.calls))
		}
	}
	ok := func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
		return events.SQSEventResponse{}, nil
	}
	if _, err := stream.New(ok).Kafka(t.Context(), kafkaEvent(topic...)); err == nil {
		t.Error("a handler that is not idemq's: no error")
	}
	if _, err := stream.New(nil).Kafka(t.Context(), kafkaEvent(topic...)); err == nil {
		t.Error("stream.New(nil): no error")
	}
	if resp, err := s.Kafka(t.Context(), events.KafkaEvent{}); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Errorf("an empty batch: %v, %v; want nothing reported", kafkaFailures(resp), err)
	}
}

// A typed handler reads a Kafka record's value as its request.
func TestKafkaTypedHandler(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var ran []string
	fn := func(_ context.Context, b body) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		ran = append(ran, b.Key)
		if b.Key == "a1" {
			return "", errors.New("no")
		}
		return "ok " + b.Key, nil
	}
	h, err := handler.NewTyped(storeFor(t), fn, handler.WithRequest(request.Identity{Namespace: namespace}), quiet())
	if err != nil {
		t.Fatal(err)
	}
	resp, err := stream.New(h).Kafka(t.Context(), kafkaEvent(topic...))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kafkaFailures(resp), []string{"orders-0@10", "orders-0@11", "orders-0@12"}; !slices.Equal(got, want) {
		t.Fatalf("batch item failures %v; want %v", got, want)
	}
	slices.Sort(ran)
	if !slices.Equal(ran, []string{"a1", "c1", "c2", "c3"}) {
		t.Errorf("ran %v; want a1, c1, c2 and c3 (partition 0 waits behind a1)", ran)
	}
}

// A record without a value (a tombstone) has no key to read: it holds
// its partition, as a record whose key cannot be read does, and the
// other partition goes on.
func TestKafkaTombstoneHoldsItsPartition(t *testing.T) {
	t.Parallel()
	w := newWork()
	s, _ := newHandlers(t, w)
	e := kafkaEvent(topic...)
	e.Records["orders-1"][1].Value = ""
	resp, err := s.Kafka(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := kafkaFailures(resp), []string{"orders-1@41", "orders-1@42"}; !slices.Equal(got, want) {
		t.Fatalf("batch item failures %v; want %v", got, want)
	}
	if n, m := w.count("c3"), w.count("a2"); n != 0 || m != 1 {
		t.Errorf("c3 ran %d times, a2 %d; want 0 (behind the tombstone) and 1 (another partition)", n, m)
	}
}

// An event as Lambda sends it (JSON; here a self-managed cluster's, two
// partitions, headers as signed bytes) runs, and the answer marshals as
// Lambda reads it.
func TestKafkaEventFromJSON(t *testing.T) {
	t.Parallel()
	raw := `{
  "eventSource": "SelfManagedKafka",
  "bootstrapServers": "b-1.example:9092,b-2.example:9092",
  "records": {
    "orders-1": [
      {"topic": "orders", "partition": 1, "offset": 7, "timestamp": 1765000000000, "timestampType": "CREATE_TIME",
       "value": "` + b64(`{"idempotency_key":"x7"}`) + `",
       "headers": [{"idempotency-key": [114, 45, 55]}, {"sig": [-1, 0, 1]}]},
      {"topic": "orders", "partition": 1, "offset": 8, "timestamp": 1765000000001, "timestampType": "CREATE_TIME",
       "key": "` + b64("customer-3") + `", "value": "` + b64(`{"idempotency_key":"x8"}`) + `", "headers": []}
    ],
    "orders-0": [
      {"topic": "orders", "partition": 0, "offset": 3, "timestamp": 1765000000002, "timestampType": "LOG_APPEND_TIME",
       "value": "` + b64(`{"idempotency_key":"x3"}`) + `", "headers": []}
    ]
  }
}`
	var e events.KafkaEvent
	if err := json.Unmarshal([]byte(raw), &e); err != nil {
		t.Fatal(err)
	}
	w := newWork()
	w.fails["x8"] = 1
	s, _ := newHandlers(t, w)
	resp, err := s.Kafka(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), `{"batchItemFailures":[{"itemIdentifier":{"partition":"orders-1","offset":8}}]}`; got != want {
		t.Errorf("response\n%s\nwant\n%s", got, want)
	}
	slices.Sort(w.calls)
	if want := []string{"orders-0@3", "orders-1@7", "orders-1@8"}; !slices.Equal(w.calls, want) {
		t.Errorf("calls %v; want %v", w.calls, want)
	}
}
