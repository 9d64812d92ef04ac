package producer_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/idemq/idemq/internal/sqstest"
	"github.com/idemq/idemq/producer"
)

// lossProxy stands between the producer and the SQS server (moto): it
// passes every request on, and for the ones lose picks, cuts the
// connection once the server has answered: the queue took the message,
// the producer never learns it.
type lossProxy struct {
	url       string // the proxy's
	forwardTo string // the server's
	mu        sync.Mutex
	lose      func(op string) bool
	lost      int
}

func newLossProxy(t *testing.T, target string, lose func(op string) bool) *lossProxy {
	p := &lossProxy{forwardTo: target, lose: lose}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

func (p *lossProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	req, err := http.NewRequestWithContext(context.WithoutCancel(r.Context()), r.Method, p.forwardTo+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	out, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonSQS.")
	p.mu.Lock()
	lose := resp.StatusCode == http.StatusOK && p.lose(op)
	if lose {
		p.lost++
	}
	p.mu.Unlock()
	if lose {
		panic(http.ErrAbortHandler) // the answer never reaches the producer
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// loseFirst loses the first answer to op.
func loseFirst(op string) func(string) bool {
	done := false
	return func(o string) bool {
		if o != op || done {
			return false
		}
		done = true
		return true
	}
}

// motoClient returns a client for endpoint as users build one, with the
// SDK's standard retryer: the producer's attempts are still the only ones
// (each goes out once through the SDK), so the copies counted are its.
func motoClient(endpoint string) *sqs.Client {
	return sqstest.NewClient(endpoint)
}

// receiveAll receives every message of the queue (hiding them for a
// minute).
func receiveAll(t *testing.T, client *sqs.Client, url string) []types.Message {
	t.Helper()
	var all []types.Message
	for empty := 0; empty < 2; {
		out, err := client.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(url), MaxNumberOfMessages: 10, VisibilityTimeout: 60,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			empty++
		}
		all = append(all, out.Messages...)
	}
	return all
}

func bodiesOf(msgs []types.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = aws.ToString(m.Body)
	}
	return out
}

// TestMotoLostAnswer: SQS takes the message, its answer is lost, the
// producer sends it again: the queue holds the request twice under two
// message ids, with one key, and the handler runs it once.
func TestMotoLostAnswer(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{})
	proxy := newLossProxy(t, sqstest.Endpoint(t), loseFirst("SendMessage"))
	p := must(producer.New(motoClient(proxy.url), url, func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }))
	sent, err := p.Send(context.Background(), producer.Message{Key: "req-1", Body: []byte(`{"prompt":"summarise"}`)})
	if err != nil {
		t.Fatal(err)
	}
	msgs := receiveAll(t, client, url)
	if proxy.lost != 1 || sent.Attempts != 2 || len(msgs) != 2 || aws.ToString(msgs[0].Body) != aws.ToString(msgs[1].Body) ||
		aws.ToString(msgs[0].MessageId) == aws.ToString(msgs[1].MessageId) {
		t.Fatalf("%d lost, sent %+v, queue %q: want 2 attempts, two messages with one body", proxy.lost, sent, bodiesOf(msgs))
	}
	if _, n := run(t, bodiesOf(msgs)); n != 1 {
		t.Errorf("the handler ran %d times, want 1", n)
	}
}

// TestMotoFIFO: on a FIFO queue the re-sent message carries the first
// attempt's deduplication id, so the queue keeps one copy; a key too long
// for an id is hashed to one.
func TestMotoFIFO(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{FIFO: true})
	proxy := newLossProxy(t, sqstest.Endpoint(t), loseFirst("SendMessage"))
	p := must(producer.New(motoClient(proxy.url), url, producer.WithGroupID("tenant-1"), func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }))
	key := "order 1042 " + strings.Repeat("é", 100)
	sent, err := p.Send(context.Background(), producer.Message{Key: key, Body: []byte(`{"prompt":"summarise"}`)})
	if err != nil {
		t.Fatal(err)
	}
	short, err := p.Send(context.Background(), producer.Message{Key: "req-2", Body: []byte(`{"prompt":"other"}`)})
	if err != nil {
		t.Fatal(err)
	}
	msgs := receiveAll(t, client, url)
	if proxy.lost != 1 || sent.Attempts != 2 || len(msgs) != 2 {
		t.Fatalf("%d lost, sent %+v, queue %q: want 2 attempts and one copy of each message", proxy.lost, sent, bodiesOf(msgs))
	}
	for i, want := range []string{producer.DeduplicationID(key), "req-2"} {
		a := msgs[i].Attributes
		if a["MessageDeduplicationId"] != want || a["MessageGroupId"] != "tenant-1" {
			t.Errorf("message %d: dedup id %q, group %q, want %q, tenant-1", i, a["MessageDeduplicationId"], a["MessageGroupId"], want)
		}
	}
	if short.DeduplicationID != "req-2" || len(sent.DeduplicationID) > 128 {
		t.Errorf("dedup ids %q, %q", sent.DeduplicationID, short.DeduplicationID)
	}
}

// counter counts SendMessageBatch calls and their entries.
type counter struct {
	*sqs.Client
	mu      sync.Mutex
	entries []int
}

func (c *counter) SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	c.mu.Lock()
	c.entries = append(c.entries, len(in.Entries))
	c.mu.Unlock()
	return c.Client.SendMessageBatch(ctx, in, opts...)
}

// TestMotoBatch sends small messages and bodies of about 1 MiB in one
// SendBatch: the server (which refuses a batch over 1 MiB or 10 entries)
// takes every batch, and the one message above 1 MiB fails alone.
func TestMotoBatch(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{})
	msgs := messages(12, 100)
	big := messages(3, 1<<20-64) // 1 MiB less a little, with the key
	big[2] = producer.Message{Key: "huge", Body: []byte(`{"p":"` + strings.Repeat("x", 1<<20) + `"}`)}
	msgs = append(msgs[:6], append(big, msgs[6:]...)...)
	for i := 6; i < 9; i++ {
		msgs[i].Key = "big-" + msgs[i].Key
	}
	c := &counter{Client: motoClient(sqstest.Endpoint(t))}
	p := must(producer.New(c, url))
	out, err := p.SendBatch(context.Background(), msgs)
	var me *producer.MessageError
	if !errors.As(err, &me) || me.Index != 8 || !errors.Is(err, producer.ErrTooLarge) {
		t.Fatalf("err %v: want message 8 too large", err)
	}
	for i, s := range out {
		if (s.Err == nil) != (i != 8) || (s.MessageID != "") != (i != 8) {
			t.Errorf("message %d: %+v", i, s)
		}
	}
	got := receiveAll(t, client, url)
	if len(got) != len(msgs)-1 {
		t.Errorf("%d messages on the queue, want %d", len(got), len(msgs)-1)
	}
	// Each big one overflows a batch holding anything else.
	if want := []int{6, 1, 1, 6}; !slices.Equal(c.entries, want) {
		t.Errorf("batches of %v entries, want %v", c.entries, want)
	}
}

// TestMotoBatchLostAnswer: a batch's answer is lost after the queue took
// it; the batch is sent again whole, each request is on the queue twice,
// and the handler runs each once.
func TestMotoBatchLostAnswer(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{})
	proxy := newLossProxy(t, sqstest.Endpoint(t), loseFirst("SendMessageBatch"))
	p := must(producer.New(motoClient(proxy.url), url, func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }))
	out, err := p.SendBatch(context.Background(), messages(4, 100))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range out {
		if s.Attempts != 2 {
			t.Errorf("message %d: %+v, want 2 attempts", i, s)
		}
	}
	msgs := receiveAll(t, client, url)
	if len(msgs) != 8 {
		t.Fatalf("%d messages on the queue, want each of 4 twice", len(msgs))
	}
	if keys, n := run(t, bodiesOf(msgs)); n != 4 || len(keys) != 4 {
		t.Errorf("the handler ran %d times over 8 copies, want 4", n)
	}
}

// TestMotoRejected: SQS's refusal is not retried.
func TestMotoRejected(t *testing.T) {
	t.Parallel()
	client := sqstest.Client(t)
	url := sqstest.NewQueue(t, client, sqstest.Queue{}) + "-missing"
	p := must(producer.New(motoClient(sqstest.Endpoint(t)), url, func(c *producer.Config) { c.RetryMin, c.RetryMax = 0, 0 }))
	sent, err := p.Send(context.Background(), producer.Message{Key: "req-1", Body: []byte(`{}`)})
	if !errors.Is(err, producer.ErrRejected) || sent.Attempts != 1 {
		t.Errorf("err %v, sent %+v: want ErrRejected after 1 attempt", err, sent)
	}
	out, err := p.SendBatch(context.Background(), messages(2, 50))
	if !errors.Is(err, producer.ErrRejected) || out[0].Attempts != 1 || out[1].Attempts != 1 {
		t.Errorf("batch: err %v, sent %+v: want ErrRejected after 1 attempt", err, out)
	}
}
