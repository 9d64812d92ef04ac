// Package frontdoortest is the front door's behaviour, run against any
// store (Run: a store's author runs it on theirs): the frontdoor package
// runs it on memstore, and idem/dynamostore/internal/frontdoordynamo on
// DynamoDB Local. Each test
// posts through the front door (package frontdoor), delivers what it
// enqueued at least once through a fake queue, runs the worker's handler
// (handler.New over the same store) on it, and reads the result back.
package frontdoortest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// quiet takes the logs of the front door and the worker: the tests
// check what they answer.
var quiet = slog.New(slog.DiscardHandler)

// namespace is the worker's namespace in every test.
const namespace = "summarise"

// Run runs the suite against stores newStore makes; each test gets a
// store of its own.
func Run(t *testing.T, newStore func(t *testing.T) frontdoor.Store) {
	t.Run("concurrent posts enqueue once", func(t *testing.T) { t.Parallel(); concurrentPosts(t, newStore(t)) })
	t.Run("payload mismatch", func(t *testing.T) { t.Parallel(); payloadMismatch(t, newStore(t)) })
	t.Run("status", func(t *testing.T) { t.Parallel(); status(t, newStore(t)) })
	t.Run("bad requests", func(t *testing.T) { t.Parallel(); badRequests(t, newStore(t)) })
	t.Run("in progress", func(t *testing.T) { t.Parallel(); inProgress(t, newStore(t)) })
	t.Run("lost HTTP answer", func(t *testing.T) { t.Parallel(); lostAnswer(t, newStore(t)) })
	t.Run("lost enqueue answer", func(t *testing.T) { t.Parallel(); lostEnqueueAnswer(t, newStore(t)) })
	t.Run("scoped callers", func(t *testing.T) { t.Parallel(); scopedCallers(t, newStore(t)) })
	t.Run("unscoped callers share keys", func(t *testing.T) { t.Parallel(); unscopedCallers(t, newStore(t)) })
	t.Run("worker keyed by two fields", func(t *testing.T) { t.Parallel(); twoFieldWorker(t, newStore(t)) })
	t.Run("worker keyed by an attribute", func(t *testing.T) { t.Parallel(); attributeWorker(t, newStore(t)) })
	t.Run("body forwarded as sent", func(t *testing.T) { t.Parallel(); forwardedAsSent(t, newStore(t)) })
	t.Run("message over the queue's size", func(t *testing.T) { t.Parallel(); overQueueSize(t, newStore(t)) })
	t.Run("keys no POST can have", func(t *testing.T) { t.Parallel(); unpostableKeys(t, newStore(t)) })
	t.Run("scoped keys apart from raw keys", func(t *testing.T) { t.Parallel(); scopedApartFromRaw(t, newStore(t)) })
	t.Run("repeat after completion", func(t *testing.T) { t.Parallel(); repeatAfterCompletion(t, newStore(t)) })
}

// Queue is the worker's queue in the tests: a real producer (package
// producer, MaxAttempts 1: a send whose answer is lost is the front
// door's to answer) over an in-memory SQS that records what it takes, as
// the worker will receive it. Fail makes the next sends fail, after
// taking the message (an answer lost) or before.
type Queue struct {
	*producer.Producer
	sqs    *memSQS
	reader *request.Reader
}

// NewQueue returns a Queue that sends by id, the front door's Identity,
// with opts after its own.
func NewQueue(id request.Identity, opts ...producer.Option) *Queue {
	reader, err := request.NewReader(id)
	if err != nil {
		panic(err)
	}
	q := &Queue{sqs: &memSQS{}, reader: reader}
	if q.Producer, err = producer.New(q.sqs, "https://sqs.us-east-1.amazonaws.com/123456789012/requests",
		append([]producer.Option{producer.WithRequest(id), func(c *producer.Config) { c.MaxAttempts = 1 }}, opts...)...); err != nil {
		panic(err)
	}
	return q
}

// Message is one message the queue took.
type Message struct {
	// Msg is the message as the worker receives it: its body and its
	// attributes as sent.
	Msg events.SQSMessage
	// Key is the key of the record the worker claims for it (read with
	// the queue's Identity); "" when it has none.
	Key idem.Key
}

// memSQS is an in-memory SQS behind producer.SQSAPI.
type memSQS struct {
	mu   sync.Mutex
	msgs []events.SQSMessage
	// fail, while above 0, fails that many sends; sendAnyway takes them
	// first.
	fail       int
	sendAnyway bool
}

func (f *memSQS) SendMessage(ctx context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// What SQS refuses: text outside XML's characters.
	if err := queue.CheckText(aws.ToString(in.MessageBody)); err != nil {
		return nil, invalidContents(err)
	}
	for _, a := range in.MessageAttributes {
		if err := queue.CheckText(aws.ToString(a.StringValue)); err != nil {
			return nil, invalidContents(err)
		}
	}
	msg := events.SQSMessage{MessageId: fmt.Sprintf("m-%d", len(f.msgs)+1), Body: aws.ToString(in.MessageBody),
		EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:requests"}
	for name, a := range in.MessageAttributes {
		if msg.MessageAttributes == nil {
			msg.MessageAttributes = map[string]events.SQSMessageAttribute{}
		}
		msg.MessageAttributes[name] = events.SQSMessageAttribute{DataType: aws.ToString(a.DataType), StringValue: a.StringValue}
	}
	if f.fail > 0 {
		f.fail--
		if !f.sendAnyway {
			return nil, errors.New("queue: connection refused")
		}
		f.msgs = append(f.msgs, msg)
		return nil, errors.New("queue: sent, answer lost")
	}
	f.msgs = append(f.msgs, msg)
	return &sqs.SendMessageOutput{MessageId: aws.String(msg.MessageId)}, nil
}

// invalidContents is SQS's answer to a message with characters it does
// not take: 400 InvalidMessageContents.
func invalidContents(err error) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: http.StatusBadRequest}},
		Err:      &smithy.GenericAPIError{Code: "InvalidMessageContents", Message: err.Error(), Fault: smithy.FaultClient},
	}}
}

func (f *memSQS) SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error) {
	return nil, errors.New("memSQS: the front door sends one message at a time")
}

// Fail makes the next n sends fail: after taking the message when sent
// is set, else before.
func (q *Queue) Fail(n int, sent bool) {
	q.sqs.mu.Lock()
	defer q.sqs.mu.Unlock()
	q.sqs.fail, q.sqs.sendAnyway = n, sent
}

// Messages returns what the queue took, in order.
func (q *Queue) Messages() []Message {
	q.sqs.mu.Lock()
	msgs := slices.Clone(q.sqs.msgs)
	q.sqs.mu.Unlock()
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i].Msg = m
		if id, err := q.reader.ReadKey(m); err == nil {
			out[i].Key = id.Key
		}
	}
	return out
}

// Count returns how many messages the queue took for the worker's record
// key.
func (q *Queue) Count(key idem.Key) int {
	n := 0
	for _, m := range q.Messages() {
		if m.Key == key {
			n++
		}
	}
	return n
}

// bundle is one test's front door, queue and worker, all by one Identity.
type bundle struct {
	t      *testing.T
	store  frontdoor.Store
	id     request.Identity
	reader *request.Reader
	queue  *Queue
	front  http.Handler
	work   handler.Handler
	calls  sync.Map // record key → *atomic.Int64: the provider's calls
	ids    atomic.Int64
}

// newBundle is newBundleFor with the default Identity: the worker's
// namespace, the key in the body's idempotency_key.
func newBundle(t *testing.T, store frontdoor.Store, opts ...frontdoor.Option) *bundle {
	t.Helper()
	return newBundleFor(t, store, request.Identity{Namespace: namespace}, nil, opts...)
}

// newBundleFor makes a bundle whose front door, queue (with qopts) and
// worker's handler all take id.
func newBundleFor(t *testing.T, store frontdoor.Store, id request.Identity, qopts []producer.Option, opts ...frontdoor.Option) *bundle {
	t.Helper()
	b := &bundle{t: t, store: store, id: id, queue: NewQueue(id, qopts...)}
	var err error
	if b.reader, err = request.NewReader(id); err != nil {
		t.Fatal(err)
	}
	if b.front, err = frontdoor.New(store, b.queue, append([]frontdoor.Option{frontdoor.WithRequest(id), frontdoor.WithLogger(quiet)}, opts...)...); err != nil {
		t.Fatal(err)
	}
	// The provider: counts its calls per record key, answers with the
	// prompt.
	provider := func(_ context.Context, msg events.SQSMessage) ([]byte, error) {
		var req struct {
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal([]byte(msg.Body), &req); err != nil {
			return nil, err
		}
		rid, err := b.reader.ReadKey(msg)
		if err != nil {
			return nil, err
		}
		n, _ := b.calls.LoadOrStore(rid.Key, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		return json.Marshal(map[string]string{"summary": "of " + req.Prompt})
	}
	if b.work, err = handler.New(store, provider, handler.WithRequest(id), handler.WithLogger(quiet)); err != nil {
		t.Fatal(err)
	}
	return b
}

// key is the worker's record key of the request whose key is value,
// posted within scope ("" for none).
func (b *bundle) key(value, scope string) idem.Key {
	b.t.Helper()
	id, err := b.reader.ID(value, scope)
	if err != nil {
		b.t.Fatal(err)
	}
	return id.Key
}

// providerCalls is how many times the provider ran for the worker's
// record key.
func (b *bundle) providerCalls(key idem.Key) int64 {
	if n, ok := b.calls.Load(key); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// post posts body with key ("" for none) and returns the answer.
func (b *bundle) post(key, body string) *http.Response { return b.postAs("", key, body) }

// get reads the status of key.
func (b *bundle) get(key string) *http.Response { return b.getAs("", key) }

// CallerHeader names the caller of a request in the scoped tests
// (HeaderScope); the tests send it where a deployment would have an
// authenticated identity.
const CallerHeader = "X-Test-Caller"

// HeaderScope is the scope func of the scoped tests: the caller named in
// CallerHeader; "-" names none (""), and no header is ErrNoScope. A
// caller "%xx…" is percent-decoded, so a test can name a scope the key
// rule refuses.
func HeaderScope(r *http.Request) (string, error) {
	switch caller := r.Header.Get(CallerHeader); {
	case caller == "":
		return "", fmt.Errorf("%w: no %s", frontdoor.ErrNoScope, CallerHeader)
	case caller == "-":
		return "", nil
	case strings.HasPrefix(caller, "%"):
		return url.PathUnescape(caller)
	default:
		return caller, nil
	}
}

// postAs posts body with key ("" for none) as caller ("" for no
// CallerHeader) and returns the answer.
func (b *bundle) postAs(caller, key, body string) *http.Response {
	r := httptest.NewRequest(http.MethodPost, frontdoor.DefaultPath, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set(frontdoor.HeaderKey, `"`+key+`"`)
	}
	if caller != "" {
		r.Header.Set(CallerHeader, caller)
	}
	w := httptest.NewRecorder()
	b.front.ServeHTTP(w, r)
	return w.Result()
}

// getAs reads the status of key (escaped as a path segment) as caller
// ("" for no CallerHeader).
func (b *bundle) getAs(caller, key string) *http.Response {
	return b.getPath(caller, frontdoor.DefaultPath+"/"+url.PathEscape(key))
}

// getPath reads the status at path as caller ("" for no CallerHeader).
func (b *bundle) getPath(caller, path string) *http.Response {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if caller != "" {
		r.Header.Set(CallerHeader, caller)
	}
	w := httptest.NewRecorder()
	b.front.ServeHTTP(w, r)
	return w.Result()
}

// deliver hands every message enqueued so far to the worker at least
// once: each in a batch of its own, then every other one again, in one
// batch with a copy of itself (a redelivery meeting its duplicate). Every
// record must be acknowledged.
func (b *bundle) deliver() {
	b.t.Helper()
	msgs := b.queue.Messages()
	for i, m := range msgs {
		b.invoke(m)
		if i%2 == 0 {
			b.invoke(m, m)
		}
	}
}

// invoke runs one batch of msgs on the worker, each under a message id of
// its own (as a redelivery has); every record must be acknowledged.
func (b *bundle) invoke(msgs ...Message) {
	b.t.Helper()
	var ev events.SQSEvent
	for _, m := range msgs {
		msg := m.Msg
		msg.MessageId = fmt.Sprintf("d-%d", b.ids.Add(1))
		ev.Records = append(ev.Records, msg)
	}
	resp, err := b.work(context.Background(), ev)
	if err != nil || len(resp.BatchItemFailures) > 0 {
		b.t.Fatalf("worker: %v, failures %v", err, resp.BatchItemFailures)
	}
}

// read returns an answer's status and body.
func read(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// wantStatus checks an answer's status code and returns its body.
func wantStatus(t *testing.T, what string, resp *http.Response, want int) string {
	t.Helper()
	got, body := read(t, resp)
	if got != want {
		t.Fatalf("%s: %d %s, want %d", what, got, body, want)
	}
	return body
}

// concurrentPosts: 100 clients post the same request at once, for each of
// a few keys; each key is enqueued once, every answer is the same 202 or a
// 409 to retry, the worker (given each message at least once, some twice)
// calls the provider once per key, and the status then is its result.
func concurrentPosts(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	const clients, keys = 100, 3
	type answer struct {
		status int
		body   string
	}
	answers := make([][]answer, keys)
	var wg sync.WaitGroup
	for k := range keys {
		answers[k] = make([]answer, clients)
		for c := range clients {
			wg.Go(func() {
				status, body := read(t, b.post(fmt.Sprintf("conc-%d", k), fmt.Sprintf(`{"prompt":"text %d"}`, k)))
				answers[k][c] = answer{status, body}
			})
		}
	}
	wg.Wait()
	for k := range keys {
		key := fmt.Sprintf("conc-%d", k)
		accepted, first := 0, ""
		for _, a := range answers[k] {
			switch a.status {
			case http.StatusAccepted:
				accepted++
				if first == "" {
					first = a.body
				} else if a.body != first {
					t.Errorf("%s: 202 answers differ: %s and %s", key, first, a.body)
				}
			case http.StatusConflict:
			default:
				t.Errorf("%s: answered %d %s, want 202 or 409", key, a.status, a.body)
			}
		}
		if accepted == 0 {
			t.Errorf("%s: no client was answered 202", key)
		}
		t.Logf("%s: %d clients answered 202, %d answered 409", key, accepted, clients-accepted)
		if n := b.queue.Count(b.key(key, "")); n != 1 {
			t.Errorf("%s: enqueued %d times, want 1", key, n)
		}
		// A client answered 409 retries, and is answered the same 202.
		if body := wantStatus(t, key+" retried", b.post(key, fmt.Sprintf(`{"prompt":"text %d"}`, k)), http.StatusAccepted); first != "" && body != first {
			t.Errorf("%s: retry answered %s, want %s", key, body, first)
		}
	}
	b.deliver()
	for k := range keys {
		key := fmt.Sprintf("conc-%d", k)
		if n := b.providerCalls(b.key(key, "")); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", key, n)
		}
		if body := wantStatus(t, key+" status", b.get(key), http.StatusOK); body != fmt.Sprintf(`{"summary":"of text %d"}`, k) {
			t.Errorf("%s: status answered %s", key, body)
		}
	}
}

// payloadMismatch: a key reused with another body is 422 and enqueues
// nothing; the same body spelled otherwise (white space, member order) is
// the same request.
func payloadMismatch(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	first := wantStatus(t, "first", b.post("mm-1", `{"prompt":"a","model":"m"}`), http.StatusAccepted)
	wantStatus(t, "another body", b.post("mm-1", `{"prompt":"b","model":"m"}`), http.StatusUnprocessableEntity)
	if again := wantStatus(t, "respelled", b.post("mm-1", ` { "model": "m",  "prompt": "a" } `), http.StatusAccepted); again != first {
		t.Errorf("respelled body answered %s, want %s", again, first)
	}
	if n := b.queue.Count(b.key("mm-1", "")); n != 1 {
		t.Errorf("enqueued %d times, want 1", n)
	}
	// After the worker ran, too.
	b.deliver()
	wantStatus(t, "another body after the work", b.post("mm-1", `{"prompt":"c"}`), http.StatusUnprocessableEntity)
}

// status: 404 for an unknown key; 202 queued once accepted; 202 in
// progress while the worker runs it; 200 with the result after.
func status(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	wantStatus(t, "unknown", b.get("st-1"), http.StatusNotFound)
	accepted := b.post("st-1", `{"prompt":"p"}`)
	if loc := accepted.Header.Get("Location"); loc != frontdoor.DefaultPath+"/st-1" {
		t.Errorf("Location %q, want %s/st-1", loc, frontdoor.DefaultPath)
	}
	wantStatus(t, "posted", accepted, http.StatusAccepted)
	wantState(t, "queued", b.get("st-1"), frontdoor.StateQueued)

	// A worker whose provider waits: the key is in progress meanwhile.
	started, release := make(chan struct{}), make(chan struct{})
	slow, err := handler.New(store, func(context.Context, events.SQSMessage) ([]byte, error) {
		close(started)
		<-release
		return []byte("slow summary"), nil
	}, handler.WithRequest(request.Identity{Namespace: namespace}), handler.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := slow(context.Background(), events.SQSEvent{Records: []events.SQSMessage{b.queue.Messages()[0].Msg}})
		if err == nil && len(resp.BatchItemFailures) > 0 {
			err = fmt.Errorf("failures %v", resp.BatchItemFailures)
		}
		done <- err
	}()
	<-started
	wantState(t, "running", b.get("st-1"), frontdoor.StateInProgress)
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	resp := b.get("st-1")
	if got := resp.Header.Get("Content-Type"); got != "application/octet-stream" {
		t.Errorf("Content-Type %q of a result that is not JSON", got)
	}
	if body := wantStatus(t, "done", resp, http.StatusOK); body != "slow summary" {
		t.Errorf("result %q, want %q", body, "slow summary")
	}
	// A key with a slash: escaped in the URL, found by it.
	loc := b.post("st/2", `{"prompt":"q"}`).Header.Get("Location")
	if loc != frontdoor.DefaultPath+"/st%2F2" {
		t.Errorf("Location %q, want the key escaped", loc)
	}
	w := httptest.NewRecorder()
	b.front.ServeHTTP(w, httptest.NewRequest(http.MethodGet, loc, nil))
	wantState(t, "escaped key", w.Result(), frontdoor.StateQueued)
}

func wantState(t *testing.T, what string, resp *http.Response, state string) {
	t.Helper()
	body := wantStatus(t, what, resp, http.StatusAccepted)
	var got struct {
		Key    string `json:"idempotency_key"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || got.Status != state {
		t.Errorf("%s: body %s, want state %q", what, body, state)
	}
}

// badRequests: each is refused with its status, and nothing is enqueued.
func badRequests(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store, func(c *frontdoor.Config) { c.MaxBodyBytes = 64 })
	for _, tc := range []struct {
		name, key, body, contentType string
		want                         int
	}{
		{"no key", "", `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"empty key", `""`, `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"unterminated key", `"abc`, `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"key with parameters", `"abc";a=1`, `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"bare key with a space", `ab c`, `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"key too long", strings.Repeat("k", frontdoor.MaxKeyBytes+1), `{"prompt":"p"}`, "", http.StatusBadRequest},
		{"not JSON", `"bad-1"`, `prompt=p`, "", http.StatusBadRequest},
		{"not an object", `"bad-2"`, `["p"]`, "", http.StatusBadRequest},
		{"duplicate member", `"bad-3"`, `{"prompt":"p","prompt":"q"}`, "", http.StatusBadRequest},
		{"another key in the body", `"bad-4"`, `{"idempotency_key":"other","prompt":"p"}`, "", http.StatusBadRequest},
		{"too large", `"bad-5"`, `{"prompt":"` + strings.Repeat("p", 64) + `"}`, "", http.StatusRequestEntityTooLarge},
		{"not JSON content", `"bad-6"`, `{"prompt":"p"}`, "text/plain", http.StatusUnsupportedMediaType},
	} {
		r := httptest.NewRequest(http.MethodPost, frontdoor.DefaultPath, strings.NewReader(tc.body))
		if tc.key != "" {
			r.Header.Set(frontdoor.HeaderKey, tc.key)
		}
		if tc.contentType != "" {
			r.Header.Set("Content-Type", tc.contentType)
		}
		w := httptest.NewRecorder()
		b.front.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, w.Code, w.Body, tc.want)
		}
		if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("%s: Content-Type %q, want a problem", tc.name, ct)
		}
	}
	if msgs := b.queue.Messages(); len(msgs) != 0 {
		t.Errorf("enqueued %v, want nothing", msgs)
	}
	// The same key in the body is taken, bare keys too, and the worker
	// finds it there.
	r := httptest.NewRequest(http.MethodPost, frontdoor.DefaultPath, strings.NewReader(`{"idempotency_key":"ok-1","prompt":"p"}`))
	r.Header.Set(frontdoor.HeaderKey, "ok-1")
	w := httptest.NewRecorder()
	b.front.ServeHTTP(w, r)
	wantStatus(t, "key in the body and the header", w.Result(), http.StatusAccepted)
	wantStatus(t, "empty object", b.post("ok-2", ` {} `), http.StatusAccepted)
	b.deliver()
	for _, key := range []string{"ok-1", "ok-2"} {
		if n := b.providerCalls(b.key(key, "")); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", key, n)
		}
	}
}

// inProgress: a POST while the first of its key still enqueues is 409
// with Retry-After (422 with another body), and enqueues nothing; once the first is done, the
// retry is answered its 202. The status meanwhile is "accepting".
func inProgress(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	entered, release := make(chan struct{}), make(chan struct{})
	slow, err := frontdoor.New(store, &heldQueue{Queue: b.queue, entered: entered, release: release},
		frontdoor.WithRequest(request.Identity{Namespace: namespace}), frontdoor.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan *http.Response, 1)
	go func() {
		r := httptest.NewRequest(http.MethodPost, frontdoor.DefaultPath, strings.NewReader(`{"prompt":"slow"}`))
		r.Header.Set(frontdoor.HeaderKey, `"ip-1"`)
		w := httptest.NewRecorder()
		slow.ServeHTTP(w, r)
		first <- w.Result()
	}()
	<-entered
	resp := b.post("ip-1", `{"prompt":"slow"}`)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("409 without Retry-After")
	}
	wantStatus(t, "while the first enqueues", resp, http.StatusConflict)
	wantState(t, "status while the first enqueues", b.get("ip-1"), frontdoor.StateAccepting)
	wantStatus(t, "another body while the first enqueues", b.post("ip-1", `{"prompt":"other"}`), http.StatusUnprocessableEntity)
	close(release)
	want := wantStatus(t, "the first", <-first, http.StatusAccepted)
	if got := wantStatus(t, "the retry", b.post("ip-1", `{"prompt":"slow"}`), http.StatusAccepted); got != want {
		t.Errorf("retry answered %s, want %s", got, want)
	}
	if n := b.queue.Count(b.key("ip-1", "")); n != 1 {
		t.Errorf("enqueued %d times, want 1", n)
	}
}

// heldQueue is a Queue whose sends wait for release, once entered is
// closed.
type heldQueue struct {
	*Queue
	entered, release chan struct{}
}

func (q *heldQueue) Send(ctx context.Context, m producer.Message) (producer.Sent, error) {
	close(q.entered)
	<-q.release
	return q.Queue.Send(ctx, m)
}

// dropTransport is a client transport whose next `drop` answers are lost:
// the server handled the request, the client sees an error.
type dropTransport struct {
	drop atomic.Int64
}

func (d *dropTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && d.drop.Add(-1) >= 0 {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("connection reset: answer lost")
	}
	return resp, err
}

// lostAnswer: the front door accepted the request but its answer was
// lost; the client retries with the same key until answered, and is
// answered the same 202: one message, one provider call.
func lostAnswer(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	srv := httptest.NewServer(b.front)
	defer srv.Close()
	transport := &dropTransport{}
	transport.drop.Store(2)
	client := &http.Client{Transport: transport}
	var resp *http.Response
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequest(http.MethodPost, srv.URL+frontdoor.DefaultPath, bytes.NewReader([]byte(`{"prompt":"lost"}`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(frontdoor.HeaderKey, `"lost-1"`)
		if resp, err = client.Do(req); err == nil {
			if attempt != 3 {
				t.Errorf("answered on attempt %d, want 3 (two lost)", attempt)
			}
			break
		}
		if attempt == 5 {
			t.Fatalf("no answer after %d attempts: %v", attempt, err)
		}
	}
	wantStatus(t, "retry", resp, http.StatusAccepted)
	if n := b.queue.Count(b.key("lost-1", "")); n != 1 {
		t.Errorf("enqueued %d times, want 1", n)
	}
	b.deliver()
	if n := b.providerCalls(b.key("lost-1", "")); n != 1 {
		t.Errorf("the provider ran %d times, want 1", n)
	}
}

// lostEnqueueAnswer: the queue took the message but its answer was lost,
// so the front door answered 503 and the client retried, sending it
// again: two messages, one provider call. An enqueue refused outright
// leaves nothing behind, and the retry is accepted.
func lostEnqueueAnswer(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	b.queue.Fail(1, true)
	resp := b.post("lq-1", `{"prompt":"x"}`)
	if resp.Header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	wantStatus(t, "lost enqueue answer", resp, http.StatusServiceUnavailable)
	wantStatus(t, "lost: nothing accepted", b.get("lq-1"), http.StatusNotFound)
	wantStatus(t, "retry", b.post("lq-1", `{"prompt":"x"}`), http.StatusAccepted)
	if n := b.queue.Count(b.key("lq-1", "")); n != 2 {
		t.Errorf("enqueued %d times, want 2 (one whose answer was lost)", n)
	}
	b.queue.Fail(1, false)
	wantStatus(t, "refused", b.post("lq-2", `{"prompt":"y"}`), http.StatusServiceUnavailable)
	wantStatus(t, "retry of the refused", b.post("lq-2", `{"prompt":"y"}`), http.StatusAccepted)
	b.deliver()
	for _, key := range []string{"lq-1", "lq-2"} {
		if n := b.providerCalls(b.key(key, "")); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", key, n)
		}
	}
	if n := b.queue.Count(b.key("lq-2", "")); n != 1 {
		t.Errorf("lq-2: enqueued %d times, want 1", n)
	}
}

// scopedCallers: with a scope, each caller's keys are its own. Two
// callers posting one key with one body make two requests, two messages
// and two provider calls, each sent with the caller's key in the body and
// its scope in request.ScopeAttribute, so the worker keeps it under
// idem.ScopedKey(namespace, scope, key); each reads its own result, and a
// third caller reads 404. A scope that joins differently ("a:b" and "c",
// "a" and "b:c") is another key. A caller whose scope cannot be told is
// refused with 403 and enqueues and reads nothing.
func scopedCallers(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store, frontdoor.WithScope(HeaderScope))
	alice := wantStatus(t, "alice posts", b.postAs("alice", "sc-1", `{"prompt":"same"}`), http.StatusAccepted)
	wantStatus(t, "bob reads alice's key", b.getAs("bob", "sc-1"), http.StatusNotFound)
	resp := b.postAs("bob", "sc-1", `{"prompt":"same"}`)
	if loc := resp.Header.Get("Location"); loc != frontdoor.DefaultPath+"/sc-1" {
		t.Errorf("bob's Location %q, want the client's key, %s/sc-1", loc, frontdoor.DefaultPath)
	}
	if bob := wantStatus(t, "bob posts alice's key and body", resp, http.StatusAccepted); bob != alice {
		t.Errorf("bob answered %s, want the same 202 body as alice's (the client's key only): %s", bob, alice)
	}
	wantStatus(t, "alice retries", b.postAs("alice", "sc-1", `{"prompt":"same"}`), http.StatusAccepted)
	// Another body under a key another caller holds is no mismatch.
	wantStatus(t, "alice posts sc-2", b.postAs("alice", "sc-2", `{"prompt":"alice's"}`), http.StatusAccepted)
	wantStatus(t, "bob posts sc-2, another body", b.postAs("bob", "sc-2", `{"prompt":"bob's"}`), http.StatusAccepted)
	// The client's own key in the body is the key sent.
	wantStatus(t, "alice posts sc-3, the key in the body", b.postAs("alice", "sc-3", `{"idempotency_key":"sc-3","prompt":"in body"}`), http.StatusAccepted)
	// Scopes and keys do not run into each other.
	wantStatus(t, "a:b posts c", b.postAs("a:b", "c", `{"prompt":"ab c"}`), http.StatusAccepted)
	wantStatus(t, "a reads b:c", b.getAs("a", "b:c"), http.StatusNotFound)
	wantStatus(t, "a posts b:c", b.postAs("a", "b:c", `{"prompt":"a bc"}`), http.StatusAccepted)

	// Refused: no caller, or a scope func that names none.
	for _, caller := range []string{"", "-"} {
		resp := b.postAs(caller, "sc-1", `{"prompt":"same"}`)
		if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("caller %q: Content-Type %q, want a problem", caller, ct)
		}
		wantStatus(t, fmt.Sprintf("caller %q posts", caller), resp, http.StatusForbidden)
		wantStatus(t, fmt.Sprintf("caller %q reads", caller), b.getAs(caller, "sc-1"), http.StatusForbidden)
	}

	type sent struct{ scope, key, prompt string }
	want := map[idem.Key]sent{} // the worker's record key → what was sent under it
	for _, s := range []sent{
		{"alice", "sc-1", "same"}, {"bob", "sc-1", "same"},
		{"alice", "sc-2", "alice's"}, {"bob", "sc-2", "bob's"},
		{"alice", "sc-3", "in body"}, {"a:b", "c", "ab c"}, {"a", "b:c", "a bc"},
	} {
		want[b.key(s.key, s.scope)] = s
	}
	msgs := b.queue.Messages()
	if len(msgs) != len(want) {
		t.Errorf("enqueued %d messages, want %d: %v", len(msgs), len(want), msgs)
	}
	for _, m := range msgs {
		var body struct {
			Key    string `json:"idempotency_key"`
			Prompt string `json:"prompt"`
		}
		if err := json.Unmarshal([]byte(m.Msg.Body), &body); err != nil {
			t.Fatal(err)
		}
		w, ok := want[m.Key]
		scope := m.Msg.MessageAttributes[request.ScopeAttribute].StringValue
		if !ok || body.Key != w.key || body.Prompt != w.prompt || scope == nil || *scope != w.scope {
			t.Errorf("enqueued under %q the body %s, scope %v: want the caller's key in the body, its scope in %s", m.Key, m.Msg.Body, scope, request.ScopeAttribute)
		}
		if n := b.queue.Count(m.Key); n != 1 {
			t.Errorf("%s: enqueued %d times, want 1", m.Key, n)
		}
	}
	b.deliver()
	for key := range want {
		if n := b.providerCalls(key); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", key, n)
		}
	}
	for _, read := range want {
		if body := wantStatus(t, read.scope+" reads "+read.key, b.getAs(read.scope, read.key), http.StatusOK); body != `{"summary":"of `+read.prompt+`"}` {
			t.Errorf("%s reads %s: %s, want the summary of %q", read.scope, read.key, body, read.prompt)
		}
	}
	for _, key := range []string{"sc-1", "sc-2", "sc-3"} {
		wantStatus(t, "carol reads "+key, b.getAs("carol", key), http.StatusNotFound)
	}
	wantStatus(t, "a reads c", b.getAs("a", "c"), http.StatusNotFound)
}

// unscopedCallers: without a scope every caller shares one key space, as
// Config.Scope says: a second caller's post of a key is the first's
// request (answered its 202, not enqueued), and the second reads the
// first's result.
func unscopedCallers(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store)
	wantStatus(t, "alice posts", b.postAs("alice", "us-1", `{"prompt":"p"}`), http.StatusAccepted)
	wantStatus(t, "bob posts another body", b.postAs("bob", "us-1", `{"prompt":"q"}`), http.StatusUnprocessableEntity)
	wantStatus(t, "bob posts the same", b.postAs("bob", "us-1", `{"prompt":"p"}`), http.StatusAccepted)
	if msgs := b.queue.Messages(); len(msgs) != 1 || msgs[0].Key != b.key("us-1", "") {
		t.Errorf("enqueued %v, want one message under the client's key", msgs)
	}
	b.deliver()
	wantStatus(t, "bob reads alice's result", b.getAs("bob", "us-1"), http.StatusOK)
}

// twoFieldWorker: a worker keyed by two body fields (a natural key) behind
// the front door. The message is the body as the caller sent it, nothing
// put in it; the worker's key is the one the body makes, in the caller's
// scope, and the Idempotency-Key is the POST's handle: a status read by
// it returns the worker's result. Two handles for one document are one
// provider call; another caller's is its own; a body that makes no key
// is 400 and sends nothing.
func twoFieldWorker(t *testing.T, store frontdoor.Store) {
	id := request.Identity{Namespace: namespace, KeyFields: []string{"document_id", "version"}}
	b := newBundleFor(t, store, id, nil, frontdoor.WithScope(HeaderScope))
	body := `{"document_id":"doc-1", "version":9, "prompt":"chapter 9"}`
	wantStatus(t, "alice posts h-1", b.postAs("alice", "h-1", body), http.StatusAccepted)
	wantState(t, "alice reads h-1, not run", b.getAs("alice", "h-1"), frontdoor.StateQueued)
	alice, bob := b.key("document_id:doc-1:version:9", "alice"), b.key("document_id:doc-1:version:9", "bob")
	if msgs := b.queue.Messages(); len(msgs) != 1 || msgs[0].Msg.Body != body || msgs[0].Key != alice {
		t.Fatalf("sent %+v; want the body as posted, under the worker's key %s", msgs, alice)
	}
	wantStatus(t, "alice posts h-2, the same document spelled otherwise", b.postAs("alice", "h-2", ` {"version":9.0, "document_id":"doc-1", "prompt":"chapter 9"}`), http.StatusAccepted)
	wantStatus(t, "bob posts h-1", b.postAs("bob", "h-1", body), http.StatusAccepted)
	for _, bad := range []string{`{"document_id":"doc-1","prompt":"no version"}`, `{"document_id":"doc-1","version":""}`, `{"document_id":"a\u0000b","version":1}`} {
		wantStatus(t, "a body that makes no key: "+bad, b.postAs("alice", "h-3", bad), http.StatusBadRequest)
	}
	if n := len(b.queue.Messages()); n != 3 {
		t.Errorf("sent %d messages, want 3", n)
	}
	b.deliver()
	for _, key := range []idem.Key{alice, bob} {
		if n := b.providerCalls(key); n != 1 {
			t.Errorf("%s: the provider ran %d times, want 1", key, n)
		}
	}
	for _, read := range []struct{ caller, key string }{{"alice", "h-1"}, {"alice", "h-2"}, {"bob", "h-1"}} {
		if got := wantStatus(t, read.caller+" reads "+read.key, b.getAs(read.caller, read.key), http.StatusOK); got != `{"summary":"of chapter 9"}` {
			t.Errorf("%s reads %s: %s", read.caller, read.key, got)
		}
	}
	wantStatus(t, "bob reads alice's h-2", b.getAs("bob", "h-2"), http.StatusNotFound)
	wantStatus(t, "alice reads the refused h-3", b.getAs("alice", "h-3"), http.StatusNotFound)
}

// attributeWorker: a worker keyed by a message attribute. The key goes in
// the attribute, the body as the caller sent it (a member that happens to
// be named idempotency_key is data), and the status is the worker's
// result.
func attributeWorker(t *testing.T, store frontdoor.Store) {
	id := request.Identity{Namespace: namespace, KeyAttribute: "request-key"}
	b := newBundleFor(t, store, id, nil)
	body := `{"prompt":"p", "idempotency_key":"not the key"}`
	wantStatus(t, "post", b.post("at-1", body), http.StatusAccepted)
	msgs := b.queue.Messages()
	if len(msgs) != 1 || msgs[0].Msg.Body != body || msgs[0].Key != b.key("at-1", "") {
		t.Fatalf("sent %+v; want the body as posted, under %s", msgs, b.key("at-1", ""))
	}
	if a := msgs[0].Msg.MessageAttributes["request-key"]; a.DataType != "String" || a.StringValue == nil || *a.StringValue != "at-1" {
		t.Errorf("attribute request-key %+v, want the String at-1", a)
	}
	wantState(t, "not run", b.get("at-1"), frontdoor.StateQueued)
	b.deliver()
	if got := wantStatus(t, "run", b.get("at-1"), http.StatusOK); got != `{"summary":"of p"}` {
		t.Errorf("status %s", got)
	}
	if n := b.providerCalls(b.key("at-1", "")); n != 1 {
		t.Errorf("the provider ran %d times, want 1", n)
	}
}

// forwardedAsSent: with a scope, the message is the body byte for byte as
// the caller sent it (white space, number spellings, escapes, and <, >
// and & unescaped), but for the key member put first when it is absent;
// the scope rides in request.ScopeAttribute, not in the key.
func forwardedAsSent(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store, frontdoor.WithScope(HeaderScope))
	for _, tc := range []struct{ key, body, want string }{
		{"fw-1", ` {"prompt":"<a> & <b>",  "n": 1.50, "s":"\u00e9"} `, ` {"idempotency_key":"fw-1","prompt":"<a> & <b>",  "n": 1.50, "s":"\u00e9"} `},
		{"fw-2", `{"prompt":"<a> & <b>","idempotency_key":"fw-2"}`, `{"prompt":"<a> & <b>","idempotency_key":"fw-2"}`},
		{"fw-3", `{}`, `{"idempotency_key":"fw-3"}`},
	} {
		wantStatus(t, tc.key, b.postAs("acme", tc.key, tc.body), http.StatusAccepted)
		var got *Message
		for _, m := range b.queue.Messages() {
			if m.Key == b.key(tc.key, "acme") {
				got = &m
			}
		}
		if got == nil {
			t.Fatalf("%s: nothing sent under %s", tc.key, b.key(tc.key, "acme"))
		}
		if got.Msg.Body != tc.want {
			t.Errorf("%s: sent\n\t%s\nwant\n\t%s", tc.key, got.Msg.Body, tc.want)
		}
		if a := got.Msg.MessageAttributes[request.ScopeAttribute]; a.StringValue == nil || *a.StringValue != "acme" || len(got.Msg.MessageAttributes) != 1 {
			t.Errorf("%s: attributes %+v, want %s = acme only", tc.key, got.Msg.MessageAttributes, request.ScopeAttribute)
		}
	}
	b.deliver()
	wantStatus(t, "the result", b.getAs("acme", "fw-2"), http.StatusOK)
}

// overQueueSize: the size that counts is the message's as it is sent.
// With the body limit at the queue's message size, a body of exactly
// that size is read, but its message (with the key put in it and the
// scope attribute) is over the queue's size: 413, not 503 to retry, and
// nothing is sent or kept (the key is free for a body that fits). A body
// full of <, > and & that already holds its key is sent as it is, not
// grown by re-encoding, so one that fits is accepted.
func overQueueSize(t *testing.T, store frontdoor.Store) {
	const limit = 4096
	b := newBundleFor(t, store, request.Identity{Namespace: namespace}, []producer.Option{func(c *producer.Config) { c.MaxMessageBytes = limit }},
		func(c *frontdoor.Config) { c.MaxBodyBytes = limit }, frontdoor.WithScope(HeaderScope))
	// bodyOf is a body of n bytes: prefix, then a prompt of fill,
	// padded with x.
	bodyOf := func(n int, prefix, fill string) string {
		head, tail := `{`+prefix+`"prompt":"`, `"}`
		fills := (n - len(head) - len(tail)) / len(fill)
		body := head + strings.Repeat(fill, fills) + strings.Repeat("x", n-len(head)-len(tail)-fills*len(fill)) + tail
		if len(body) != n {
			t.Fatalf("body of %d bytes, want %d", len(body), n)
		}
		return body
	}
	resp := b.postAs("acme", "big-1", bodyOf(limit, "", "x"))
	if resp.Header.Get("Retry-After") != "" || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("413 with Retry-After %q, Content-Type %q; want a problem, not to retry", resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"))
	}
	wantStatus(t, "a body at the limit, its message over the queue's size", resp, http.StatusRequestEntityTooLarge)
	wantStatus(t, "over the body limit", b.postAs("acme", "big-2", bodyOf(limit+1, "", "x")), http.StatusRequestEntityTooLarge)
	if msgs := b.queue.Messages(); len(msgs) != 0 {
		t.Errorf("sent %d messages, want none", len(msgs))
	}
	wantStatus(t, "nothing kept", b.getAs("acme", "big-1"), http.StatusNotFound)
	wantStatus(t, "the same key, a body that fits", b.postAs("acme", "big-1", `{"prompt":"small"}`), http.StatusAccepted)
	// The scope attribute counts: idemq-scope, String, acme.
	attr := len(request.ScopeAttribute) + len("String") + len("acme")
	fits := bodyOf(limit-attr, `"idempotency_key":"html-1",`, "<&>")
	wantStatus(t, "a body of <, > and & that fits as sent", b.postAs("acme", "html-1", fits), http.StatusAccepted)
	for _, m := range b.queue.Messages() {
		if m.Key == b.key("html-1", "acme") && m.Msg.Body != fits {
			t.Errorf("html-1 sent as %.80s…, want the body as posted", m.Msg.Body)
		}
	}
	if n := b.queue.Count(b.key("html-1", "acme")); n != 1 {
		t.Errorf("html-1: sent %d times, want 1", n)
	}
	wantStatus(t, "one byte more", b.postAs("acme", "html-2", bodyOf(limit-attr+1, `"idempotency_key":"html-2",`, "<&>")), http.StatusRequestEntityTooLarge)
}

// unpostableKeys: a status URL whose key no POST can have (not printable
// ASCII: invalid UTF-8, a NUL, an overlong or surrogate encoding, a
// control character; over 255 bytes) is 404, without asking the store
// (which may refuse it) and without logging an error. A scope the key
// rule refuses is the caller's error: 400 at a POST, 404 at a GET, and
// nothing is sent.
func unpostableKeys(t *testing.T, store frontdoor.Store) {
	var logs handlerbundle.SyncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	plain := newBundle(t, store, frontdoor.WithLogger(logger))
	scoped := newBundle(t, store, frontdoor.WithLogger(logger), frontdoor.WithScope(HeaderScope))
	paths := []string{"%FF", "%00", "%C0%AF", "%ED%A0%80", "a%0Ab", "%7F", "%C2%85", "%E2%80%AE", strings.Repeat("k", frontdoor.MaxKeyBytes+1)}
	for _, p := range paths {
		wantStatus(t, "GET "+p, plain.getPath("", frontdoor.DefaultPath+"/"+p), http.StatusNotFound)
		wantStatus(t, "GET "+p+" as acme", scoped.getPath("acme", frontdoor.DefaultPath+"/"+p), http.StatusNotFound)
	}
	long := strings.Repeat("s", idem.MaxValueBytes+1)
	for _, caller := range []string{"%00", "%FF", "%1B%5B2J", long} {
		wantStatus(t, "POST as scope "+caller[:min(len(caller), 9)], scoped.postAs(caller, "ok-1", `{"prompt":"p"}`), http.StatusBadRequest)
		wantStatus(t, "GET as scope "+caller[:min(len(caller), 9)], scoped.getAs(caller, "ok-1"), http.StatusNotFound)
	}
	if n := len(plain.queue.Messages()) + len(scoped.queue.Messages()); n != 0 {
		t.Errorf("sent %d messages, want none", n)
	}
	for line := range strings.Lines(string(logs.Bytes())) {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("logged an error: %s", line)
		}
	}
}

// scopedApartFromRaw: a producer that sends the raw key "acme:k" (as any
// producer on the queue may) never reaches caller acme's key "k": acme's
// status read finds nothing it did not post, then acme's own request, and
// a front door without a scope does not serve the raw request either (it
// answers for the requests it accepted).
func scopedApartFromRaw(t *testing.T, store frontdoor.Store) {
	b := newBundle(t, store, frontdoor.WithScope(HeaderScope))
	raw := NewQueue(b.id)
	if _, err := raw.Send(context.Background(), producer.Message{Key: "acme:k", Body: []byte(`{"prompt":"raw"}`)}); err != nil {
		t.Fatal(err)
	}
	b.invoke(raw.Messages()...)
	wantStatus(t, "acme reads k, never posted", b.getAs("acme", "k"), http.StatusNotFound)
	unscoped := newBundle(t, store)
	wantStatus(t, "an unscoped front door reads acme:k, never posted", unscoped.get("acme:k"), http.StatusNotFound)
	wantStatus(t, "acme posts k", b.postAs("acme", "k", `{"prompt":"acme's"}`), http.StatusAccepted)
	wantState(t, "acme reads k, not run", b.getAs("acme", "k"), frontdoor.StateQueued)
	b.deliver()
	if got := wantStatus(t, "acme reads k", b.getAs("acme", "k"), http.StatusOK); got != `{"summary":"of acme's"}` {
		t.Errorf("acme reads %s, want its own result", got)
	}
	if n, m := b.providerCalls(b.key("acme:k", "")), b.providerCalls(b.key("k", "acme")); n != 1 || m != 1 {
		t.Errorf("the provider ran %d times for the raw key, %d for acme's; want 1 and 1", n, m)
	}
}

// repeatAfterCompletion: a repeat of an accepted POST is answered the
// same 202 while the worker has not completed the request (queued, or a
// worker holds it), and as a status read once it has: 200 with the
// result (204 for one too large to store), Location the status URL.
// Nothing is enqueued again, and another body is still 422.
func repeatAfterCompletion(t *testing.T, store frontdoor.Store) {
	ctx := context.Background()
	b := newBundle(t, store)
	const body = `{"prompt":"p"}`
	first := wantStatus(t, "first", b.post("rp-1", body), http.StatusAccepted)
	if again := wantStatus(t, "repeat, queued", b.post("rp-1", body), http.StatusAccepted); again != first {
		t.Errorf("repeat answered %s, want the first answer %s", again, first)
	}
	owner, err := handlertest.Hold(ctx, store, b.key("rp-1", ""), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	wantState(t, "status, a worker on it", b.get("rp-1"), frontdoor.StateInProgress)
	if again := wantStatus(t, "repeat, a worker on it", b.post("rp-1", body), http.StatusAccepted); again != first {
		t.Errorf("repeat answered %s, want the first answer %s", again, first)
	}
	if err := store.Complete(ctx, idem.Completion{Key: b.key("rp-1", ""), Owner: owner, Result: []byte(`{"summary":"of p"}`), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	got := wantStatus(t, "status, completed", b.get("rp-1"), http.StatusOK)
	resp := b.post("rp-1", body)
	if loc, ct := resp.Header.Get("Location"), resp.Header.Get("Content-Type"); loc != frontdoor.DefaultPath+"/rp-1" || ct != "application/json" {
		t.Errorf("repeat, completed: Location %q, Content-Type %q; want the status URL, application/json", loc, ct)
	}
	if again := wantStatus(t, "repeat, completed", resp, http.StatusOK); again != got || again != `{"summary":"of p"}` {
		t.Errorf("repeat answered %s, want the status read's %s", again, got)
	}
	wantStatus(t, "another body, completed", b.post("rp-1", `{"prompt":"q"}`), http.StatusUnprocessableEntity)

	// Through the worker: the provider's result.
	wantStatus(t, "rp-2", b.post("rp-2", `{"prompt":"r"}`), http.StatusAccepted)
	b.deliver()
	if again := wantStatus(t, "repeat of rp-2, completed", b.post("rp-2", `{"prompt":"r"}`), http.StatusOK); again != `{"summary":"of r"}` {
		t.Errorf("repeat of rp-2 answered %s", again)
	}
	// A result too large to store: 204, as a status read.
	wantStatus(t, "rp-3", b.post("rp-3", body), http.StatusAccepted)
	if owner, err = handlertest.Hold(ctx, store, b.key("rp-3", ""), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := store.Complete(ctx, idem.Completion{Key: b.key("rp-3", ""), Owner: owner, OmittedBytes: 5000, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	resp = b.post("rp-3", body)
	if got := resp.Header.Get(frontdoor.HeaderOmitted); got != "5000" {
		t.Errorf("repeat of rp-3: %s %q, want 5000", frontdoor.HeaderOmitted, got)
	}
	wantStatus(t, "repeat of rp-3, completed without its result", resp, http.StatusNoContent)
	for _, key := range []string{"rp-1", "rp-2", "rp-3"} {
		if n := b.queue.Count(b.key(key, "")); n != 1 {
			t.Errorf("%s: enqueued %d times, want 1", key, n)
		}
	}
}
