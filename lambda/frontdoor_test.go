package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/producer"
)

func TestLoadConfigFrontDoor(t *testing.T) {
	t.Parallel()
	const queueURL = "https://sqs.us-east-1.amazonaws.com/123456789012/requests"
	c, err := loadConfig(env(envMode, "frontdoor", envTable, "t", envNamespace, "summarise", envFrontQueueURL, queueURL,
		envFrontPath, "/v1/jobs", envFrontMaxBody, "1000"))
	want := frontDoorConfig{on: true, queueURL: queueURL, path: "/v1/jobs", maxBodyBytes: 1000}
	if err != nil || c.frontDoor != want {
		t.Errorf("front-door mode without a provider: %+v, %v; want %+v", c.frontDoor, err, want)
	}
	if c, err := loadConfig(env(envTable, "t", envProviderURL, "http://p", envMode, "worker")); err != nil || c.frontDoor.on {
		t.Errorf("worker mode: %+v, %v", c.frontDoor, err)
	}
	for _, tc := range []struct {
		name string
		env  func(string) string
		want []string
	}{
		{"bad mode", env(envTable, "t", envProviderURL, "http://p", envMode, "http"), []string{envMode}},
		{"no queue, no namespace", env(envTable, "t", envMode, "frontdoor"), []string{envFrontQueueURL, envNamespace}},
		{"bad queue URL", env(envTable, "t", envMode, "frontdoor", envNamespace, "n", envFrontQueueURL, "requests"), []string{envFrontQueueURL}},
		{"bad body size", env(envTable, "t", envMode, "frontdoor", envNamespace, "n", envFrontQueueURL, queueURL, envFrontMaxBody, "0"), []string{envFrontMaxBody}},
		{"and a consumer", env(envTable, "t", envMode, "frontdoor", envNamespace, "n", envFrontQueueURL, queueURL, envConsumerQueueURL, queueURL),
			[]string{envConsumerQueueURL, envMode}},
		{"front-door settings in worker mode", env(envTable, "t", envProviderURL, "http://p", envFrontQueueURL, queueURL, envFrontPath, "/x", envFrontMaxBody, "9"),
			[]string{envFrontQueueURL, envFrontPath, envFrontMaxBody, envMode}},
		{"worker mode still needs a provider", env(envTable, "t"), []string{envProviderURL}},
	} {
		_, err := loadConfig(tc.env)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, name := range tc.want {
			if !strings.Contains(err.Error(), name) {
				t.Errorf("%s: error %q does not name %s", tc.name, err, name)
			}
		}
	}
}

// sendSQS answers SendMessage (the JSON protocol) and records the bodies.
type sendSQS struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newSendSQS(t *testing.T) *sendSQS {
	f := &sendSQS{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ MessageBody string }
		raw, _ := io.ReadAll(r.Body)
		if r.Header.Get("X-Amz-Target") != "AmazonSQS.SendMessage" || json.Unmarshal(raw, &in) != nil {
			http.Error(w, "unexpected call", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.bodies = append(f.bodies, in.MessageBody)
		f.mu.Unlock()
		sum := md5.Sum([]byte(in.MessageBody))
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_ = json.NewEncoder(w).Encode(map[string]string{"MessageId": "m-1", "MD5OfMessageBody": hex.EncodeToString(sum[:])})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *sendSQS) sent() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// The worker in front-door mode, wired from its environment (the memory
// store, a fake SQS), served through the function URL adapter: a POST is
// sent to the queue once, with the key in the body, and its status read
// back.
func TestFrontDoorMode(t *testing.T) {
	t.Parallel()
	sqsServer := newSendSQS(t)
	p, err := start(context.Background(), env(envMode, "frontdoor", envStore, "memory", envNamespace, "summarise",
		envFrontQueueURL, sqsServer.URL+"/123456789012/requests", envSQSEndpoint, sqsServer.URL),
		slog.New(slog.DiscardHandler), fakeAWS(sqsServer.URL)...)
	if err != nil {
		t.Fatal(err)
	}
	if p.frontDoor == nil || p.handler != nil || p.consumer != nil {
		t.Fatalf("program %+v: want a front door only", p)
	}
	serve := functionURLHandler(p.frontDoor)
	call := func(method, path, body string) events.LambdaFunctionURLResponse {
		resp, err := serve(context.Background(), events.LambdaFunctionURLRequest{RawPath: path, Body: body,
			Headers:        map[string]string{"idempotency-key": `"fd-1"`, "content-type": "application/json"},
			RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: method}}})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for range 2 {
		if resp := call("POST", "/requests", `{"prompt":"p"}`); resp.StatusCode != http.StatusAccepted || resp.Headers["Location"] != "/requests/fd-1" {
			t.Fatalf("POST: %+v", resp)
		}
	}
	if sent := sqsServer.sent(); len(sent) != 1 || sent[0] != `{"idempotency_key":"fd-1","prompt":"p"}` {
		t.Errorf("sent %q, want one message with the key", sent)
	}
	if resp := call("GET", "/requests/fd-1", ""); resp.StatusCode != http.StatusAccepted || !strings.Contains(resp.Body, `"queued"`) {
		t.Errorf("GET: %+v", resp)
	}
}

// captureSend records the input of SendMessage.
type captureSend struct{ in *sqs.SendMessageInput }

func (c *captureSend) SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return nil, errors.New("captureSend: no batches")
}

func (c *captureSend) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	c.in = in
	return &sqs.SendMessageOutput{}, nil
}

// The front door sends through the producer: the key in the body where
// the worker reads it; on a FIFO queue the key's hash is the group and the
// producer's deduplication id of the key the deduplication id (a key may
// be longer than their 128 characters); on a standard queue neither is
// set.
func TestEnqueuerFIFO(t *testing.T) {
	t.Parallel()
	var c captureSend
	key := strings.Repeat("k", 200)
	fifo, err := newEnqueuer(&c, "https://sqs/1/requests.fifo", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := fifo.Enqueue(context.Background(), key, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if c.in.MessageDeduplicationId == nil || *c.in.MessageDeduplicationId != producer.DeduplicationID(key) || c.in.MessageGroupId == nil || len(*c.in.MessageGroupId) != 64 {
		t.Errorf("FIFO input %+v", c.in)
	}
	read, err := handler.KeyReader(handler.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := read(events.SQSMessage{Body: *c.in.MessageBody}); err != nil || got != key {
		t.Errorf("the body sent %q holds key %q (%v), want %q", *c.in.MessageBody, got, err, key)
	}
	standard, err := newEnqueuer(&c, "https://sqs/1/requests", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := standard.Enqueue(context.Background(), key, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if c.in.MessageDeduplicationId != nil || c.in.MessageGroupId != nil {
		t.Errorf("standard input %+v", c.in)
	}
}
