package worker_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/idemq/idemq/worker"
)

// summarise is a request type keyed by its document and version.
type summarise struct {
	DocumentID string `json:"document_id" idemq:"key"`
	Version    int    `json:"version" idemq:"key"`
	Prompt     string `json:"prompt"`
}

type summary struct {
	Text string `json:"text"`
}

// FromEnvTyped wires a typed function from the environment: the body
// decoded into the request type, keyed by its tags in IDEMQ_NAMESPACE,
// run once per key, its result stored as JSON and replayed; a body that
// does not decode comes back without a run. A variable that keys
// otherwise than the tags, and a nil function, are refused.
func TestFromEnvTyped(t *testing.T) {
	t.Parallel()
	env := map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "summarise", "IDEMQ_BACKOFF": "false"}
	var runs atomic.Int32
	fn := func(_ context.Context, req summarise) (summary, error) {
		runs.Add(1)
		return summary{Text: "of " + req.DocumentID}, nil
	}
	w, err := worker.FromEnvTyped(context.Background(), lookup(env), fn, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	body := `{"document_id":"doc-1","version":9,"prompt":"p"}`
	resp, err := w.Handler(context.Background(), batch(body, body, `{"document_id":"doc-2","version":"nine"}`))
	if err != nil || len(resp.BatchItemFailures) != 1 || resp.BatchItemFailures[0].ItemIdentifier != "m2" || runs.Load() != 1 {
		t.Fatalf("failures %v, err %v, runs %d; want m2 (not a summarise) back, one run", resp.BatchItemFailures, err, runs.Load())
	}
	rec, ok, err := w.Store.Get(context.Background(), "summarise#document_id:doc-1:version:9")
	if err != nil || !ok || string(rec.Result) != `{"text":"of doc-1"}` {
		t.Fatalf("record %+v %v %v; want the JSON result under the tags' key", rec, ok, err)
	}

	conflict := map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "summarise", "IDEMQ_BACKOFF": "false", "IDEMQ_KEY_FIELD": "prompt"}
	if _, err := worker.FromEnvTyped(context.Background(), lookup(conflict), fn, quiet); err == nil || !strings.Contains(err.Error(), "IDEMQ_KEY_FIELD") {
		t.Errorf("IDEMQ_KEY_FIELD against the tags: %v; want an error naming it", err)
	}
	if _, err := worker.FromEnvTyped[summarise, summary](context.Background(), lookup(env), nil, quiet); err == nil {
		t.Error("a nil function: no error")
	}
}

// Outside Lambda, without IDEMQ_CONSUMER_QUEUE_URL, Run has nothing to
// serve: it says so, and how to run, instead of aws-lambda-go's
// "expected AWS Lambda environment variables" (which exits the process).
func TestRunOutsideLambda(t *testing.T) {
	t.Parallel()
	env := map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "summarise", "IDEMQ_BACKOFF": "false"}
	w, err := worker.FromEnv(context.Background(), lookup(env), (&counter{}).fn, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Run(context.Background())
	const want = "worker: not in Lambda (AWS_LAMBDA_RUNTIME_API is unset) and no IDEMQ_CONSUMER_QUEUE_URL: set it to consume that queue here, or run in Lambda"
	if !errors.Is(err, worker.ErrNotLambda) || err.Error() != want {
		t.Errorf("Run: %v\nwant %s", err, want)
	}
}
