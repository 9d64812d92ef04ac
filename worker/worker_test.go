package worker_test

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
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/request"
	"github.com/idemq/idemq/worker"
)

// quiet is the tests' logger: none.
var quiet = worker.WithLogger(slog.New(slog.DiscardHandler))

// lookup is a getenv over the variables kv names.
func lookup(kv map[string]string) func(string) string {
	return func(name string) string { return kv[name] }
}

// counter is a handler.Func that counts its runs by key and returns the
// body upper-cased.
type counter struct {
	mu   sync.Mutex
	runs map[string]int
}

func (c *counter) fn(_ context.Context, msg events.SQSMessage) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.runs == nil {
		c.runs = map[string]int{}
	}
	c.runs[msg.Body]++
	return []byte(strings.ToUpper(msg.Body)), nil
}

func (c *counter) count(body string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[body]
}

func batch(bodies ...string) events.SQSEvent {
	var ev events.SQSEvent
	for i, b := range bodies {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: fmt.Sprint("m", i), Body: b,
			EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:jobs", ReceiptHandle: fmt.Sprint("r", i)})
	}
	return ev
}

// What the environment gets wrong stops FromEnv, named; what the library
// cannot honour too.
func TestFromEnvRefuses(t *testing.T) {
	t.Parallel()
	var c counter
	for _, tc := range []struct {
		name string
		env  map[string]string
		opts []worker.Option
		want []string
	}{
		{"every bad variable at once", map[string]string{"IDEMQ_STORE": "postgres", "IDEMQ_LEASE": "soon", "IDEMQ_CONCURRENCY": "0"},
			nil, []string{"bad configuration", "IDEMQ_TABLE", "IDEMQ_STORE_URL", "IDEMQ_LEASE", "IDEMQ_CONCURRENCY"}},
		{"no namespace off Lambda", map[string]string{"IDEMQ_STORE": "memory"}, nil, []string{"IDEMQ_NAMESPACE is required outside Lambda"}},
		{"the front door's refusal with a bad variable", map[string]string{"IDEMQ_MODE": "frontdoor", "IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n",
			"IDEMQ_FRONTDOOR_QUEUE_URL": "http://127.0.0.1:1/q", "IDEMQ_LEASE": "soon"}, nil,
			[]string{"IDEMQ_LEASE", "IDEMQ_FRONTDOOR_SCOPE=iam: the front door cannot tell a request's caller"}},
		{"the dispatcher's refusal with a bad variable", map[string]string{"IDEMQ_MODE": "dispatch", "IDEMQ_DURABLE_FUNCTION": "summarise:prod",
			"IDEMQ_CONSUMER_QUEUE_URL": "http://127.0.0.1:1/000000000000/q", "IDEMQ_CONSUMER_VISIBILITY": "1500ms", "IDEMQ_CONCURRENCY": "lots"},
			[]worker.Option{testAWS}, []string{"IDEMQ_CONCURRENCY", "IDEMQ_CONSUMER_VISIBILITY: consumer: VisibilityTimeout"}},
		{"a variable of your own with a bad one of idemq's", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_LEASE": "soon"},
			[]worker.Option{worker.WithConfig(worker.Config{Check: func(idemqenv.Settings) error { return errors.New("MY_MODEL is required") }})},
			[]string{"bad configuration", "IDEMQ_LEASE", "MY_MODEL is required"}},
		{"tracing without a tracer", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false", "IDEMQ_TRACING": "otel"},
			nil, []string{"IDEMQ_TRACING=otel: this function cannot trace"}},
		{"a store it was built without", map[string]string{"IDEMQ_STORE": "redis", "IDEMQ_STORE_URL": "redis://:s3cret@127.0.0.1:1", "IDEMQ_NAMESPACE": "n"},
			nil, []string{"IDEMQ_STORE=redis: this program was built without that store", "redisenv.Opener()"}},
		{"a setting the library refuses", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false",
			"IDEMQ_LEASE": "4s", "IDEMQ_HEARTBEAT": "4s"}, nil, []string{"bad configuration:\n" + "IDEMQ_HEARTBEAT: idem: Heartbeat 4s: must be at most half of Lease 4s"}},
		{"an expiry under the lease", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false",
			"IDEMQ_RECORD_EXPIRY": "1m", "IDEMQ_LEASE": "2m"}, nil, []string{"IDEMQ_RECORD_EXPIRY: idem: Expiry 1m0s: must be at least Lease 2m0s"}},
		{"a key function with a key field", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false", "IDEMQ_KEY_FIELD": "id"},
			[]worker.Option{worker.WithHandlerOptions(handler.WithRequest(request.Identity{KeyFunc: func(events.SQSMessage) (string, error) { return "k", nil }}))}, []string{"IDEMQ_KEY_FIELD" + `: request: KeyField "id": contradicts`, "given in code"}},
		{"another namespace in code", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false"},
			[]worker.Option{worker.WithHandlerOptions(handler.WithRequest(request.Identity{Namespace: "other"}))}, []string{"IDEMQ_NAMESPACE: request: Namespace", "given in code"}},
		{"a consumer setting the consumer refuses", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false",
			"IDEMQ_CONSUMER_QUEUE_URL": "http://127.0.0.1:1/000000000000/q", "IDEMQ_CONSUMER_VISIBILITY": "1500ms"},
			[]worker.Option{testAWS}, []string{"IDEMQ_CONSUMER_VISIBILITY: consumer: VisibilityTimeout"}},
		{"a consumer's heartbeat the default lease would cut", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false",
			"IDEMQ_CONSUMER_QUEUE_URL": "http://127.0.0.1:1/000000000000/q", "IDEMQ_HEARTBEAT": "31s"},
			nil, []string{"IDEMQ_HEARTBEAT=31s", "IDEMQ_LEASE", consumer.DefaultShortLease.String(), "30s"}},
		{"a nil option", map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n"}, []worker.Option{nil}, []string{"worker: options[1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w, err := worker.FromEnv(context.Background(), lookup(tc.env), c.fn, append([]worker.Option{quiet}, tc.opts...)...)
			if err == nil {
				w.Close()
				t.Fatalf("no error; want one naming %q", tc.want)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the store's password is shown: %v", err)
			}
		})
	}
	if _, err := worker.FromEnv(context.Background(), lookup(map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n"}), nil); err == nil {
		t.Error("a nil function is taken")
	}
}

// testAWS points the SDK at local servers: static credentials, the
// region the test servers sign for.
var testAWS = worker.WithAWS(func(ctx context.Context) (aws.Config, error) {
	return awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion("us-east-1"),
		awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", "")))
})

// On DynamoDB Local, as the CDK construct deploys it: one run per key, the
// duplicate replayed, the next delivery replayed from the table.
func TestWorkerOnDynamoDB(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	table := dynamotest.NewTable(t, client)
	var c counter
	var replays atomic.Int32
	w, err := worker.FromEnv(context.Background(), lookup(map[string]string{
		"IDEMQ_TABLE": table, "IDEMQ_DYNAMODB_ENDPOINT": os.Getenv(dynamotest.EndpointEnv), "IDEMQ_NAMESPACE": "worker-test",
		"IDEMQ_KEY_FIELD": "idempotency_key", "IDEMQ_BACKOFF": "false", "IDEMQ_RECORD_EXPIRY": "120h",
		"IDEMQ_QUEUE": `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"0s","fifo":false}`,
	}), c.fn, quiet, testAWS, worker.WithHandlerOptions(handler.WithReplayHook(func(context.Context, events.SQSMessage, []byte) error {
		replays.Add(1)
		return nil
	})))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const a, b = `{"idempotency_key":"a"}`, `{"idempotency_key":"b"}`
	for range 2 {
		resp, err := w.Handler(context.Background(), batch(a, a, b))
		if err != nil || len(resp.BatchItemFailures) != 0 {
			t.Fatalf("batch: %+v, %v", resp, err)
		}
	}
	if c.count(a) != 1 || c.count(b) != 1 {
		t.Errorf("runs %v, want one per key", c.runs)
	}
	if n := replays.Load(); n != 4 {
		t.Errorf("%d replays, want 4 (the copy of a in the first batch, the whole second one)", n)
	}
	rec, ok, err := w.Store.Get(context.Background(), idem.Key("worker-test#a"))
	if err != nil || !ok || rec.Status != idem.StatusCompleted || string(rec.Result) != strings.ToUpper(a) {
		t.Errorf("record of a: %+v, %v, %v", rec, ok, err)
	}
}

// The back-off gives an in-progress message back through the SQS
// endpoint and queue URL the environment names, to the lease's end.
func TestWorkerBackoff(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var calls []string
	sqsServer := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, r.Header.Get("X-Amz-Target")+" "+string(body))
		mu.Unlock()
		rw.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = rw.Write([]byte("{}"))
	}))
	defer sqsServer.Close()
	const queueURL = "http://127.0.0.1:1/000000000000/jobs"
	var c counter
	w, err := worker.FromEnv(context.Background(), lookup(map[string]string{
		"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "worker-test", "IDEMQ_SQS_ENDPOINT": sqsServer.URL, "IDEMQ_QUEUE_URL": queueURL,
	}), c.fn, quiet, testAWS)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	// Another worker holds the key.
	now := time.Now()
	if _, err := w.Store.Claim(context.Background(), idem.ClaimRequest{Key: "worker-test#busy", Owner: "other", Now: now,
		LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	resp, err := w.Handler(context.Background(), batch(`{"idempotency_key":"busy"}`))
	if err != nil || len(resp.BatchItemFailures) != 1 {
		t.Fatalf("batch: %+v, %v; want the busy message back", resp, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "AmazonSQS.ChangeMessageVisibility ") || !strings.Contains(calls[0], queueURL) || !strings.Contains(calls[0], `"r0"`) {
		t.Errorf("SQS calls %q; want one ChangeMessageVisibility of r0 on %s", calls, queueURL)
	}
	if c.count(`{"idempotency_key":"busy"}`) != 0 {
		t.Error("the busy key ran")
	}
}

// EMF lines go to the writer given, under the namespace the environment
// names; IDEMQ_TRACING is honoured by the tracer given.
func TestWorkerEMFAndTracing(t *testing.T) {
	t.Parallel()
	var emf bytes.Buffer
	var traced, wrapped atomic.Int32
	var c counter
	w, err := worker.FromEnv(context.Background(), lookup(map[string]string{
		"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "worker-test", "IDEMQ_BACKOFF": "false", "IDEMQ_EMF_NAMESPACE": "jobs-metrics", "IDEMQ_TRACING": "xray",
	}), c.fn, quiet, worker.WithEMF(&emf), worker.WithTracing(func(_ context.Context, mode string) (worker.Tracing, error) {
		if mode != "xray" {
			t.Errorf("tracer made for %q, want xray", mode)
		}
		return worker.Tracing{
			Option: handler.WithReplayHook(func(context.Context, events.SQSMessage, []byte) error { traced.Add(1); return nil }),
			Wrap: func(h handler.Handler) handler.Handler {
				return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
					wrapped.Add(1)
					return h(ctx, ev)
				}
			},
		}, nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Handler(context.Background(), batch(`{"idempotency_key":"a"}`, `{"idempotency_key":"a"}`)); err != nil {
		t.Fatal(err)
	}
	var line struct {
		AWS struct {
			CloudWatchMetrics []struct{ Namespace string }
		} `json:"_aws"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(emf.Bytes()), &line); err != nil || len(line.AWS.CloudWatchMetrics) == 0 || line.AWS.CloudWatchMetrics[0].Namespace != "jobs-metrics" {
		t.Errorf("EMF %q (%v); want one line in the namespace jobs-metrics", emf.String(), err)
	}
	if traced.Load() != 1 || wrapped.Load() != 1 {
		t.Errorf("tracing option ran %d times, wrap %d; want 1 and 1", traced.Load(), wrapped.Load())
	}

	// A tracer that cannot be made stops the start-up, named.
	_, err = worker.FromEnv(context.Background(), lookup(map[string]string{
		"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "worker-test", "IDEMQ_BACKOFF": "false", "IDEMQ_TRACING": "otel",
	}), c.fn, quiet, worker.WithTracing(func(context.Context, string) (worker.Tracing, error) {
		return worker.Tracing{}, errors.New("no collector")
	}))
	if err == nil || !strings.Contains(err.Error(), "IDEMQ_TRACING=otel: no collector") {
		t.Errorf("a failed tracer: %v", err)
	}
}

// IDEMQ_CLOCK_SKEW reaches the claims: a lease that passed 5 s ago, by
// this worker's clock, still holds under a bound of 10 s (another
// worker's clock may be that far behind), and is taken over under the
// default bound.
func TestWorkerClockSkew(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		skew string
		runs int
	}{{"10s", 0}, {"", 1}} {
		var c counter
		env := map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "worker-test", "IDEMQ_BACKOFF": "false"}
		if tc.skew != "" {
			env["IDEMQ_CLOCK_SKEW"] = tc.skew
		}
		w, err := worker.FromEnv(context.Background(), lookup(env), c.fn, quiet, testAWS)
		if err != nil {
			t.Fatal(err)
		}
		past := time.Now().Add(-time.Minute)
		if _, err := w.Store.Claim(context.Background(), idem.ClaimRequest{Key: "worker-test#crashed", Owner: "crashed", Now: past,
			LeaseUntil: time.Now().Add(-5 * time.Second), ExpiresAt: past.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Handler(context.Background(), batch(`{"idempotency_key":"crashed"}`)); err != nil {
			t.Fatal(err)
		}
		if got := c.count(`{"idempotency_key":"crashed"}`); got != tc.runs {
			t.Errorf("IDEMQ_CLOCK_SKEW=%q: a lease passed 5 s ago taken over %d times, want %d", tc.skew, got, tc.runs)
		}
		w.Close()
	}
}

// Every bad variable is reported in one error, whether the environment's
// reader finds it (a value that does not parse, two variables that
// contradict each other) or the part it configures does (a heartbeat the
// claim's settings refuse, found only when the handler's options are
// checked).
func TestFromEnvReportsEveryBadVariable(t *testing.T) {
	t.Parallel()
	var c counter
	w, err := worker.FromEnv(context.Background(), lookup(map[string]string{
		"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "n", "IDEMQ_BACKOFF": "false",
		"IDEMQ_CONCURRENCY": "lots",                        // does not parse
		"IDEMQ_STORE_URL":   "redis://127.0.0.1:1",         // contradicts IDEMQ_STORE
		"IDEMQ_LEASE":       "4s", "IDEMQ_HEARTBEAT": "4s", // the claim's settings refuse it
	}), c.fn, quiet)
	if err == nil {
		w.Close()
		t.Fatal("no error")
	}
	for _, want := range []string{
		"IDEMQ_CONCURRENCY" + `="lots"`,
		"IDEMQ_STORE_URL is set but IDEMQ_STORE is memory",
		"IDEMQ_HEARTBEAT: idem: Heartbeat 4s: must be at most half of Lease 4s",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\ndoes not say %q", err, want)
		}
	}
	if n := strings.Count(err.Error(), "bad configuration"); n != 1 {
		t.Errorf("error\n%v\nsays \"bad configuration\" %d times, want once", err, n)
	}
}
