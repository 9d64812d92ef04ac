//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// concurrentInvocations is the AWS_LAMBDA_MAX_CONCURRENCY the concurrent
// test runs the worker with.
const concurrentInvocations = 8

// TestConcurrentInvocations runs the built bootstrap as Lambda Managed
// Instances do, with AWS_LAMBDA_MAX_CONCURRENCY=8, against a fake Lambda
// Runtime API on loopback: aws-lambda-go v1.55.1 then polls for the next
// invocation from 8 goroutines in one process, and the fake API hands 8
// invocations out at once, whose batches share three keys. (The pinned
// aws-lambda-rie has a Managed Instances mode, but it runs the bootstrap
// only from /var/task, /var/runtime or /opt and as user 993, which a test
// cannot arrange without taking over the machine's paths; see
// docs/worker.md.) The fake provider holds each batch's own request until
// the requests of all 8 batches are in it at once, which only concurrent
// invocations can do; with the memory store, which lives in the process,
// each shared key costs one provider request across the 8, and every
// record is acknowledged at once.
func TestConcurrentInvocations(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the test builds the bootstrap")
	}
	t.Parallel()
	bootstrap := workerBootstrap(t)

	g := newGate(concurrentInvocations, 30*time.Second)
	f := &fakeProvider{t: t}
	f.Server = httptest.NewServer(g.wrap(http.HandlerFunc(f.serve)))
	t.Cleanup(f.Close)
	api := startRuntime(t, bootstrap, f, "IDEMQ_STORE=memory", fmt.Sprintf("AWS_LAMBDA_MAX_CONCURRENCY=%d", concurrentInvocations))
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := api.waitPolling(ctx, concurrentInvocations); err != nil {
		t.Fatal(err)
	}

	batches := make([][]events.SQSMessage, concurrentInvocations)
	for i := range batches {
		batches[i] = append(batches[i], sqsMsg(fmt.Sprintf("solo-%d", i), fmt.Sprintf("solo-%d", i), fmt.Sprintf("solo prompt %d", i)))
		for k := range 3 {
			batches[i] = append(batches[i], sqsMsg(fmt.Sprintf("shared-%d-%d", k, i), fmt.Sprintf("shared-%d", k), fmt.Sprintf("shared prompt %d", k)))
		}
	}
	failed := make([][]string, concurrentInvocations)
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Go(func() { failed[i] = api.invoke(t, events.SQSEvent{Records: b}) })
	}
	wg.Wait()
	if peak := g.peak(); peak != concurrentInvocations {
		t.Errorf("at most %d batches' requests were at the provider at once, want %d: the invocations did not run side by side", peak, concurrentInvocations)
	}
	// A copy of a shared key waits for the batch running it and replays
	// its result: nothing comes back to the queue.
	for i := range failed {
		if len(failed[i]) != 0 {
			t.Errorf("invocation %d: batch item failures %q, want none", i, failed[i])
		}
	}
	for k := range 3 {
		if n := f.count(fmt.Sprintf("shared prompt %d", k)); n != 1 {
			t.Errorf("shared-%d: %d provider requests across %d concurrent invocations and their redeliveries, want 1", k, n, concurrentInvocations)
		}
	}
	for i := range concurrentInvocations {
		if n := f.count(fmt.Sprintf("solo prompt %d", i)); n != 1 {
			t.Errorf("solo-%d: %d provider requests, want 1", i, n)
		}
	}
}

func sqsMsg(id, key, prompt string) events.SQSMessage {
	body, _ := json.Marshal(map[string]string{"idempotency_key": key, "model": "test-model", "prompt": prompt})
	return events.SQSMessage{
		MessageId: id, ReceiptHandle: "AQEB-" + id, Body: string(body),
		EventSource: "aws:sqs", EventSourceARN: "arn:aws:sqs:us-east-1:123456789012:idemq-jobs", AWSRegion: "us-east-1",
		Attributes: map[string]string{"ApproximateReceiveCount": "1"},
	}
}

// fakeRuntime is the Lambda Runtime API (2018-06-01) on loopback: it
// answers each runtime's GET .../invocation/next with an invocation handed
// to invoke, and takes its response or error.
type fakeRuntime struct {
	*httptest.Server
	invokes chan fakeInvocation

	mu      sync.Mutex
	polling int // GETs of next waiting now
	seq     int
	results map[string]chan []byte
	cond    chan struct{} // closed and replaced when polling changes
}

type fakeInvocation struct {
	id    string
	event []byte
}

func newFakeRuntime(t *testing.T) *fakeRuntime {
	r := &fakeRuntime{invokes: make(chan fakeInvocation), results: map[string]chan []byte{}, cond: make(chan struct{})}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

func (r *fakeRuntime) setPolling(d int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.polling += d
	close(r.cond)
	r.cond = make(chan struct{})
}

func (r *fakeRuntime) serve(w http.ResponseWriter, req *http.Request) {
	const prefix = "/2018-06-01/runtime/invocation/"
	switch {
	case req.Method == http.MethodGet && req.URL.Path == prefix+"next":
		r.setPolling(1)
		var inv fakeInvocation
		select {
		case inv = <-r.invokes:
		case <-req.Context().Done():
		}
		r.setPolling(-1)
		if inv.id == "" {
			return
		}
		w.Header().Set("Lambda-Runtime-Aws-Request-Id", inv.id)
		w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(time.Minute).UnixMilli(), 10))
		w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:"+functionName)
		_, _ = w.Write(inv.event)
	case req.Method == http.MethodPost && strings.HasPrefix(req.URL.Path, prefix):
		rest := strings.TrimPrefix(req.URL.Path, prefix)
		id, kind, _ := strings.Cut(rest, "/")
		body, _ := io.ReadAll(req.Body)
		if kind == "error" {
			body = append([]byte("function error: "), body...)
		}
		r.mu.Lock()
		ch := r.results[id]
		r.mu.Unlock()
		if ch != nil {
			ch <- body
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		w.WriteHeader(http.StatusAccepted) // init errors and the like: the process's output says
	}
}

// waitPolling waits until n runtimes poll for the next invocation at once.
func (r *fakeRuntime) waitPolling(ctx context.Context, n int) error {
	for {
		r.mu.Lock()
		polling, cond := r.polling, r.cond
		r.mu.Unlock()
		if polling >= n {
			return nil
		}
		select {
		case <-cond:
		case <-ctx.Done():
			return fmt.Errorf("%d runtimes polled for an invocation at once, want %d: %w", polling, n, ctx.Err())
		}
	}
}

// invoke hands event to the next runtime that polls and returns the
// response's batch item failures.
func (r *fakeRuntime) invoke(t *testing.T, event events.SQSEvent) []string {
	t.Helper()
	body, err := json.Marshal(event)
	if err != nil {
		t.Error(err)
		return nil
	}
	ch := make(chan []byte, 1)
	r.mu.Lock()
	r.seq++
	id := fmt.Sprintf("req-%d", r.seq)
	r.results[id] = ch
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	select {
	case r.invokes <- fakeInvocation{id: id, event: body}:
	case <-ctx.Done():
		t.Errorf("no runtime polled for invocation %s", id)
		return nil
	}
	var raw []byte
	select {
	case raw = <-ch:
	case <-ctx.Done():
		t.Errorf("no response to invocation %s", id)
		return nil
	}
	var out events.SQSEventResponse
	if err := json.Unmarshal(raw, &out); err != nil || bytes.HasPrefix(raw, []byte("function error")) {
		t.Errorf("invocation %s: %s", id, raw)
		return nil
	}
	return ids(out)
}

// startRuntime runs the bootstrap against a fake Runtime API, as Lambda
// runs it, with the worker's environment plus env; the process is killed
// when the test ends and its output logged if the test failed.
func startRuntime(t *testing.T, bootstrap string, f *fakeProvider, env ...string) *fakeRuntime {
	t.Helper()
	r := newFakeRuntime(t)
	cmd := exec.Command(bootstrap)
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"AWS_LAMBDA_RUNTIME_API=" + strings.TrimPrefix(r.URL, "http://"),
		"AWS_LAMBDA_FUNCTION_NAME=" + functionName,
		"AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_ACCESS_KEY_ID=idemqtest", "AWS_SECRET_ACCESS_KEY=idemqtest",
		"AWS_ENDPOINT_URL_SQS=http://127.0.0.1:1",    // the back-off: a closed port
		"AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:1", // the start-up's read of the mappings: refused, logged
		"IDEMQ_PROVIDER_URL=" + f.URL + "/v1",
		"IDEMQ_RECORD_EXPIRY=120h",
	}, env...)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("bootstrap output:\n%s", out.String())
		}
	})
	return r
}

func ids(resp events.SQSEventResponse) []string {
	var out []string
	for _, f := range resp.BatchItemFailures {
		out = append(out, f.ItemIdentifier)
	}
	return out
}

// gate holds each request whose prompt starts "solo" until n of them are
// held at once, then lets them all go; it lets any go after wait, so an
// emulator that runs one invocation at a time fails the test rather than
// hangs it. peak is the most it held at once.
type gate struct {
	n    int
	wait time.Duration

	mu      sync.Mutex
	held    int
	max     int
	release chan struct{}
}

func newGate(n int, wait time.Duration) *gate {
	return &gate{n: n, wait: wait, release: make(chan struct{})}
}

func (g *gate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte("solo prompt")) {
			g.mu.Lock()
			g.held++
			g.max = max(g.max, g.held)
			if g.held == g.n {
				close(g.release)
			}
			g.mu.Unlock()
			select {
			case <-g.release:
			case <-time.After(g.wait):
			}
			g.mu.Lock()
			g.held--
			g.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (g *gate) peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}
