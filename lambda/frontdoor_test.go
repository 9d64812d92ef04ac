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
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/producer"
	idemqrequest "github.com/idemq/idemq/request"
)

// A front door cannot serve a key it cannot put in a body field: a key
// of fields or an attribute is refused at wiring, named.
func TestFrontDoorRefusesOtherKeySources(t *testing.T) {
	t.Parallel()
	for _, kv := range [][]string{{idemqenv.KeyFields, "a,b"}, {idemqenv.KeyAttribute, "key"}, {idemqenv.FingerprintFields, "a"}} {
		_, err := start(context.Background(), env(append([]string{idemqenv.Mode, "frontdoor", idemqenv.Store, "memory", idemqenv.Namespace, "n",
			idemqenv.FrontDoorQueueURL, "http://127.0.0.1:1/123456789012/requests"}, kv...)...), slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
		if err == nil || !strings.Contains(err.Error(), kv[0]+" is set with "+idemqenv.Mode+"=frontdoor") {
			t.Errorf("%s: %v; want it refused, named", kv[0], err)
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
// back. Keys are the IAM caller's (IDEMQ_FRONTDOOR_SCOPE=iam, the
// default): another role posting the same key and body is another
// request, sent again, under its own key; it reads its own status, and a
// third caller's read is 404; a request without an IAM caller is 403 and
// sends nothing.
func TestFrontDoorMode(t *testing.T) {
	t.Parallel()
	sqsServer := newSendSQS(t)
	p, err := start(context.Background(), env(idemqenv.Mode, "frontdoor", idemqenv.Store, "memory", idemqenv.Namespace, "summarise",
		idemqenv.FrontDoorQueueURL, sqsServer.URL+"/123456789012/requests", idemqenv.SQSEndpoint, sqsServer.URL),
		slog.New(slog.DiscardHandler), fakeAWS(sqsServer.URL)...)
	if err != nil {
		t.Fatal(err)
	}
	if p.frontDoor == nil || p.handler != nil || p.consumer != nil {
		t.Fatalf("program %+v: want a front door only", p)
	}
	serve := functionURLHandler(p.frontDoor)
	// A session of role "writer" (each call its own session name, as
	// renewed credentials have), of role "reader", and no IAM caller.
	session := 0
	writer := func() *iamCaller {
		session++
		return &iamCaller{AccountID: "123456789012", CallerID: "AROAWRITER:s", UserID: "AROAWRITER:s",
			UserARN: "arn:aws:sts::123456789012:assumed-role/writer/session-" + strconv.Itoa(session)}
	}
	reader := &iamCaller{AccountID: "123456789012", UserARN: "arn:aws:sts::123456789012:assumed-role/reader/r1"}
	other := &iamCaller{AccountID: "210987654321", UserARN: "arn:aws:iam::210987654321:user/someone"}
	call := func(caller *iamCaller, method, path, body string) events.LambdaFunctionURLResponse {
		ev := events.LambdaFunctionURLRequest{RawPath: path, Body: body,
			Headers:        map[string]string{"idempotency-key": `"fd-1"`, "content-type": "application/json"},
			RequestContext: events.LambdaFunctionURLRequestContext{HTTP: events.LambdaFunctionURLRequestContextHTTPDescription{Method: method}}}
		if caller != nil {
			ev.RequestContext.Authorizer = &events.LambdaFunctionURLRequestContextAuthorizerDescription{IAM: caller}
		}
		resp, err := serve(context.Background(), ev)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for range 2 {
		if resp := call(writer(), "POST", "/requests", `{"prompt":"p"}`); resp.StatusCode != http.StatusAccepted || resp.Headers["Location"] != "/requests/fd-1" {
			t.Fatalf("POST: %+v", resp)
		}
	}
	const writerKey = `arn%3Aaws%3Asts%3A%3A123456789012%3Aassumed-role/writer:fd-1` // idem.NaturalValue(principal, key)
	if sent := sqsServer.sent(); len(sent) != 1 || sent[0] != `{"idempotency_key":"`+writerKey+`","prompt":"p"}` {
		t.Errorf("sent %q, want one message with the writer's key", sent)
	}
	if resp := call(reader, "GET", "/requests/fd-1", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the reader's GET of the writer's key: %+v, want 404", resp)
	}
	if resp := call(reader, "POST", "/requests", `{"prompt":"p"}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("the reader's POST of the same key: %+v", resp)
	}
	if sent := sqsServer.sent(); len(sent) != 2 || !strings.Contains(sent[1], `assumed-role/reader:fd-1"`) {
		t.Errorf("sent %q, want a second message, with the reader's key", sent)
	}
	for _, caller := range []*iamCaller{writer(), reader} {
		if resp := call(caller, "GET", "/requests/fd-1", ""); resp.StatusCode != http.StatusAccepted || !strings.Contains(resp.Body, `"queued"`) {
			t.Errorf("GET by %s: %+v", caller.UserARN, resp)
		}
	}
	if resp := call(other, "GET", "/requests/fd-1", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another account's GET: %+v, want 404", resp)
	}
	for _, method := range []string{"POST", "GET"} {
		path := map[string]string{"POST": "/requests", "GET": "/requests/fd-1"}[method]
		if resp := call(nil, method, path, `{"prompt":"p"}`); resp.StatusCode != http.StatusForbidden || resp.Headers["Content-Type"] != "application/problem+json" {
			t.Errorf("%s without an IAM caller: %+v, want 403", method, resp)
		}
	}
	if sent := sqsServer.sent(); len(sent) != 2 {
		t.Errorf("sent %d messages, want 2", len(sent))
	}
}

// The scope is the principal: a user, the root, a federated user as
// Lambda names them; an assumed role without its session name; an ARN
// that names no principal is no scope.
func TestPrincipalOf(t *testing.T) {
	t.Parallel()
	for arn, want := range map[string]string{
		"arn:aws:iam::123456789012:user/team/alice":                 "arn:aws:iam::123456789012:user/team/alice",
		"arn:aws:iam::123456789012:root":                            "arn:aws:iam::123456789012:root",
		"arn:aws:sts::123456789012:federated-user/bob":              "arn:aws:sts::123456789012:federated-user/bob",
		"arn:aws:sts::123456789012:assumed-role/writer/botocore-17": "arn:aws:sts::123456789012:assumed-role/writer",
		"arn:aws-cn:sts::123456789012:assumed-role/writer/i-0abc/x": "arn:aws-cn:sts::123456789012:assumed-role/writer",
		"arn:aws:sts::123456789012:assumed-role/writer":             "arn:aws:sts::123456789012:assumed-role/writer",
		"":                         "",
		"AROAWRITER:session":       "",
		"arn:aws:s3:::bucket/key":  "",
		"arn:aws:iam:::user/alice": "",
		"arn:aws:sts::123456789012:assumed-role//session": "",
	} {
		got, err := principalOf(arn)
		if want == "" {
			if !errors.Is(err, frontdoor.ErrNoScope) {
				t.Errorf("principalOf(%q) = %q, %v; want ErrNoScope", arn, got, err)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("principalOf(%q) = %q, %v; want %q", arn, got, err, want)
		}
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
	read, err := idemqrequest.NewReader(idemqrequest.Identity{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := read.Read(events.SQSMessage{Body: *c.in.MessageBody}); err != nil || got.Value != key {
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

// A front door refuses a worker's setting it would ignore (a lease, a
// provider), as the worker refuses the front door's: a setting that
// changes nothing is a mistake, not a setting. The names are spelled out,
// as an operator writes them.
func TestFrontDoorRefusesWorkerSettings(t *testing.T) {
	t.Parallel()
	base := []string{"IDEMQ_MODE", "frontdoor", "IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "n",
		"IDEMQ_FRONTDOOR_QUEUE_URL", "http://127.0.0.1:1/123456789012/requests"}
	for _, kv := range [][]string{{"IDEMQ_LEASE", "1m"}, {"IDEMQ_PROVIDER_URL", "http://127.0.0.1:1/v1"}, {"IDEMQ_CONCURRENCY", "5"}} {
		_, err := start(context.Background(), env(append(append([]string{}, base...), kv...)...), slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
		if err == nil || !strings.Contains(err.Error(), kv[0]+" is set but IDEMQ_MODE is frontdoor") {
			t.Errorf("front door with %s=%s: %v; want it refused, named", kv[0], kv[1], err)
		}
	}
}
