package stream_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/stream"
)

func ddbRecord(seq, op string, keys, newImage, oldImage map[string]events.DynamoDBAttributeValue) events.DynamoDBEventRecord {
	return events.DynamoDBEventRecord{
		EventName:      op,
		EventSource:    "aws:dynamodb",
		EventSourceArn: "arn:aws:dynamodb:us-east-1:000000000000:table/orders/stream/2026-12-06T00:00:00.000",
		AWSRegion:      "us-east-1",
		Change: events.DynamoDBStreamRecord{
			SequenceNumber: seq, Keys: keys, NewImage: newImage, OldImage: oldImage,
			StreamViewType: "NEW_AND_OLD_IMAGES",
		},
	}
}

func s(v string) events.DynamoDBAttributeValue { return events.NewStringAttribute(v) }
func n(v string) events.DynamoDBAttributeValue { return events.NewNumberAttribute(v) }
func keyOf(id string) map[string]events.DynamoDBAttributeValue {
	return map[string]events.DynamoDBAttributeValue{"pk": s(id), "sk": n("1")}
}

// seen records the messages the function is given.
type seen struct {
	mu   sync.Mutex
	msgs []events.SQSMessage
	fail map[string]bool // message id → fails
}

func (r *seen) fn(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msg)
	if r.fail[msg.MessageId] {
		return nil, context.DeadlineExceeded
	}
	return nil, nil
}

func TestDynamoDBImageIsPlainJSON(t *testing.T) {
	t.Parallel()
	image := map[string]events.DynamoDBAttributeValue{
		"pk":       s("order-1"),
		"sk":       n("1"),
		"request":  s("r-1"),
		"amount":   n("12345678901234567890.125"),
		"paid":     events.NewBooleanAttribute(true),
		"note":     events.NewNullAttribute(),
		"blob":     events.NewBinaryAttribute([]byte{0xde, 0xad}),
		"tags":     events.NewStringSetAttribute([]string{"b", "a"}),
		"sizes":    events.NewNumberSetAttribute([]string{"2", "1.5"}),
		"digests":  events.NewBinarySetAttribute([][]byte{{1}}),
		"lines":    events.NewListAttribute([]events.DynamoDBAttributeValue{n("3"), s("x")}),
		"customer": events.NewMapAttribute(map[string]events.DynamoDBAttributeValue{"id": s("c-9")}),
	}
	r := &seen{}
	h, err := handler.New(storeFor(t), r.fn, handler.WithRequest(requestOf("request")), quiet())
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]events.DynamoDBAttributeValue{"pk": s("order-2"), "sk": n("1"), "request": s("r-2")}
	resp, err := stream.New(h).DynamoDB(t.Context(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		ddbRecord("200", "INSERT", keyOf("order-1"), image, nil),
		ddbRecord("201", "REMOVE", keyOf("order-2"), nil, old),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("batch item failures %v; want none", resp.BatchItemFailures)
	}
	if len(r.msgs) != 2 {
		t.Fatalf("%d calls; want 2", len(r.msgs))
	}
	// The two items are two message groups, run at once: their calls come
	// in either order.
	slices.SortFunc(r.msgs, func(a, b events.SQSMessage) int { return strings.Compare(a.MessageId, b.MessageId) })
	want := `{"amount":12345678901234567890.125,"blob":"3q0=","customer":{"id":"c-9"},"digests":["AQ=="],"lines":[3,"x"],` +
		`"note":null,"paid":true,"pk":"order-1","request":"r-1","sizes":[2,1.5],"sk":1,"tags":["b","a"]}`
	if got := r.msgs[0].Body; got != want {
		t.Errorf("INSERT's body\n%s\nwant\n%s", got, want)
	}
	if got, want := r.msgs[0].Attributes["MessageGroupId"], `{"pk":"order-1","sk":1}`; got != want {
		t.Errorf("message group %s; want %s", got, want)
	}
	if got, want := r.msgs[1].Body, `{"pk":"order-2","request":"r-2","sk":1}`; got != want {
		t.Errorf("REMOVE's body %s; want its old image %s", got, want)
	}
	if got := r.msgs[1].Attributes["eventName"]; got != "REMOVE" {
		t.Errorf("eventName %q; want REMOVE", got)
	}
}

func TestDynamoDBCheckpointPerItem(t *testing.T) {
	t.Parallel()
	r := &seen{fail: map[string]bool{"301": true}}
	h, err := handler.New(storeFor(t), r.fn, handler.WithRequest(requestOf("request")), quiet())
	if err != nil {
		t.Fatal(err)
	}
	item := func(seq, id, req string) events.DynamoDBEventRecord {
		img := map[string]events.DynamoDBAttributeValue{"pk": s(id), "sk": n("1"), "request": s(req)}
		return ddbRecord(seq, "MODIFY", keyOf(id), img, img)
	}
	resp, err := stream.New(h).DynamoDB(t.Context(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		item("300", "o1", "r1"),
		item("301", "o2", "r2"), // fails
		item("302", "o1", "r3"),
		item("303", "o2", "r4"), // same item as 301: must not run
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "301" {
		t.Fatalf("batch item failures %v; want [301]", resp.BatchItemFailures)
	}
	var ids []string
	for _, m := range r.msgs {
		ids = append(ids, m.MessageId)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"300", "301", "302"}) {
		t.Errorf("ran %v; want 300, 301 and 302 (303 waits behind 301, the same item)", ids)
	}
}

func TestDynamoDBBadNumberFailsTheBatch(t *testing.T) {
	t.Parallel()
	h, err := handler.New(storeFor(t), (&seen{}).fn, quiet())
	if err != nil {
		t.Fatal(err)
	}
	img := map[string]events.DynamoDBAttributeValue{"n": n("twelve")}
	_, err = stream.New(h).DynamoDB(t.Context(), events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
		ddbRecord("400", "INSERT", keyOf("o"), img, nil),
	}})
	if err == nil {
		t.Fatal("a number that is no number: no error; want the whole batch back")
	}
}
