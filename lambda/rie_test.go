//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/internal/rie"
	"github.com/idemq/idemq/internal/storekit"
)

// rieEnv names a path to the aws-lambda-rie binary, overriding
// ../bin/aws-lambda-rie where `make test-go` installs it.
const rieEnv = "IDEMQ_RIE"

const functionName = "idemq-rie-test"

// TestRIE runs the built bootstrap under the real Lambda Runtime Interface
// Emulator and invokes it with the SQS events in testdata/, against a fake
// provider on loopback that logs every request, with the DynamoDB store
// (DynamoDB Local) and with the memory store; and with the provider's API
// key read from a fake Secrets Manager.
func TestRIE(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the RIE test builds the bootstrap and runs the emulator")
	}
	t.Parallel()
	rieBin := rieBinary(t)
	bootstrap := workerBootstrap(t)

	t.Run("dynamodb", func(t *testing.T) {
		t.Parallel()
		dynamotest.Client(t) // DynamoDB Local must answer: fails (not skips) when it does not
		// A client of our own: DynamoDB Local keeps tables per access key
		// and region, and the bootstrap signs with these.
		client := dynamodb.New(dynamodb.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(os.Getenv(dynamotest.EndpointEnv)),
			Credentials:  credentials.NewStaticCredentialsProvider("idemqrie", "idemqrie", ""),
		})
		table := dynamotest.NewTable(t, client)
		f := newFakeProvider(t)
		url := startRIE(t, rieBin, bootstrap, f,
			"IDEMQ_TABLE="+table,
			"IDEMQ_DYNAMODB_ENDPOINT="+os.Getenv(dynamotest.EndpointEnv),
			"AWS_ACCESS_KEY_ID=idemqrie", "AWS_SECRET_ACCESS_KEY=idemqrie",
		)
		checkScenario(t, url, f)

		// The completion is the record's stored result.
		rec, ok, err := must(dynamostore.New(client, table)).Get(context.Background(), idem.Key(functionName+"#order-1"))
		if err != nil || !ok || rec.Status != idem.StatusCompleted || !bytes.Contains(rec.Result, []byte(`"content":"echo: summarise order 1"`)) {
			t.Errorf("record for order-1: %+v, %v, %v", rec, ok, err)
		}
	})
	t.Run("backoff", func(t *testing.T) {
		t.Parallel()
		dynamotest.Client(t)
		client := dynamodb.New(dynamodb.Options{
			Region:       "us-east-1",
			BaseEndpoint: aws.String(os.Getenv(dynamotest.EndpointEnv)),
			Credentials:  credentials.NewStaticCredentialsProvider("idemqrie", "idemqrie", ""),
		})
		table := dynamotest.NewTable(t, client)
		holdKey(t, must(dynamostore.New(client, table)), "order-busy", `{"idempotency_key": "order-busy", "model": "test-model", "prompt": "busy order"}`, time.Minute)
		sqs := newFakeSQS(t)
		const queueURL = "http://sqs.us-east-1.localhost:9324/000000000000/idemq-jobs"
		f := newFakeProvider(t)
		url := startRIE(t, rieBin, bootstrap, f,
			"IDEMQ_TABLE="+table,
			"IDEMQ_DYNAMODB_ENDPOINT="+os.Getenv(dynamotest.EndpointEnv),
			"AWS_ACCESS_KEY_ID=idemqrie", "AWS_SECRET_ACCESS_KEY=idemqrie",
			"IDEMQ_BACKOFF=true", "IDEMQ_SQS_ENDPOINT="+sqs.URL, "IDEMQ_QUEUE_URL="+queueURL,
		)
		// order-busy is held by another worker for a minute: reported, and
		// given back to the queue at its lease's end, through the local
		// endpoint, with the queue URL given; order-9 runs.
		got := invokeRIE(t, url, "sqs-in-progress.json")
		if want := []string{"c0000004-0000-4000-8000-000000000001"}; !slices.Equal(got, want) {
			t.Errorf("batchItemFailures %q, want %q", got, want)
		}
		calls := sqs.all()
		if len(calls) != 1 {
			t.Fatalf("SQS requests %+v, want one ChangeMessageVisibility", calls)
		}
		c := calls[0]
		// The holder's lease is a minute, judged with the clock-skew bound
		// on both sides, rounded up to the next second.
		maxBackoff := int((time.Minute + 2*idem.DefaultClockSkew + time.Second) / time.Second)
		if c.Target != "AmazonSQS.ChangeMessageVisibility" || c.QueueURL != queueURL ||
			c.ReceiptHandle != "AQEB-c0000004-0000-4000-8000-000000000001" || c.VisibilityTimeout < 50 || c.VisibilityTimeout > maxBackoff {
			t.Errorf("SQS request %+v: want ChangeMessageVisibility of order-busy's receipt on %s, to the lease's minute left (+1 s, +%v for clock skew), at most %d s", c, queueURL, 2*idem.DefaultClockSkew, maxBackoff)
		}
		if f.count("busy order") != 0 || f.count("summarise order 9") != 1 {
			t.Errorf("provider requests %+v: want order-9 only", f.all())
		}
	})
	t.Run("api key secret", func(t *testing.T) {
		t.Parallel()
		secrets := newFakeSecrets(t, map[string]fakeSecret{"idemq/provider-key": {str: "sk-from-secret"}})
		awsEnv := []string{
			"AWS_ENDPOINT_URL_SECRETS_MANAGER=" + secrets.URL, // the SDK's own endpoint override
			"AWS_ACCESS_KEY_ID=idemqrie", "AWS_SECRET_ACCESS_KEY=idemqrie",
		}
		f := newFakeProvider(t)
		url := startRIE(t, rieBin, bootstrap, f, append([]string{"IDEMQ_STORE=memory", "IDEMQ_PROVIDER_API_KEY_SECRET=idemq/provider-key"}, awsEnv...)...)
		invokeRIE(t, url, "sqs-first.json")
		invokeRIE(t, url, "sqs-redelivery.json")
		if f.total() == 0 {
			t.Fatal("no provider requests")
		}
		for _, r := range f.all() {
			if r.Auth != "Bearer sk-from-secret" {
				t.Errorf("provider request for %q: Authorization %q, want the secret's value as the bearer token", r.Prompt, r.Auth)
			}
		}
		if calls := secrets.all(); len(calls) != 1 || calls[0].Target != "secretsmanager.GetSecretValue" || calls[0].SecretID != "idemq/provider-key" {
			t.Errorf("Secrets Manager requests %+v, want one GetSecretValue of idemq/provider-key, at start-up", calls)
		}

		// A secret that cannot be read stops the start-up, naming the
		// variable.
		cmd := exec.Command(bootstrap)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "AWS_REGION=us-east-1", "AWS_EC2_METADATA_DISABLED=true",
			"IDEMQ_STORE=memory", "IDEMQ_NAMESPACE=" + functionName, "IDEMQ_PROVIDER_URL=" + f.URL,
			"IDEMQ_PROVIDER_API_KEY_SECRET=idemq/no-such-secret"}, awsEnv...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "IDEMQ_PROVIDER_API_KEY_SECRET") {
			t.Errorf("bootstrap with a missing secret: %v, want exit status 1 naming IDEMQ_PROVIDER_API_KEY_SECRET\n%s", err, out)
		}
	})
	t.Run("config errors", func(t *testing.T) {
		t.Parallel()
		checkConfigErrors(t, bootstrap)
	})
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		f := newFakeProvider(t)
		url := startRIE(t, rieBin, bootstrap, f, "IDEMQ_STORE=memory")
		checkScenario(t, url, f)
	})
	t.Run("event source mapping", func(t *testing.T) {
		t.Parallel()
		lambdaAPI := newFakeMappings(t, `{"EventSourceMappings":[{"UUID":"a1b2c3d4-0000-4000-8000-000000000001",`+
			`"EventSourceArn":"arn:aws:sqs:us-east-1:000000000000:idemq-jobs","FunctionResponseTypes":[],"State":"Enabled"}]}`)
		f := newFakeProvider(t)
		url, out := startRIEOutput(t, rieBin, bootstrap, f, "IDEMQ_STORE=memory", "AWS_ENDPOINT_URL_LAMBDA="+lambdaAPI.URL,
			"AWS_ACCESS_KEY_ID=idemqrie", "AWS_SECRET_ACCESS_KEY=idemqrie")
		// The worker starts, once, and serves.
		invokeRIE(t, url, "sqs-first.json")
		invokeRIE(t, url, "sqs-redelivery.json")
		if got := lambdaAPI.functions(); !slices.Equal(got, []string{functionName}) {
			t.Errorf("ListEventSourceMappings requests for %q, want one, at start-up, for %q", got, functionName)
		}
		var named bool
		for line := range strings.Lines(out.String()) {
			named = named || strings.Contains(line, `"level":"ERROR"`) && strings.Contains(line, "ReportBatchItemFailures") &&
				strings.Contains(line, "a1b2c3d4-0000-4000-8000-000000000001")
		}
		if !named {
			t.Errorf("no error naming the mapping without ReportBatchItemFailures in the output:\n%s", out.String())
		}
	})
}

// fakeMappings is Lambda's ListEventSourceMappings on loopback: it answers
// every request with body and keeps the FunctionName of each.
type fakeMappings struct {
	*httptest.Server
	mu    sync.Mutex
	names []string
}

func newFakeMappings(t *testing.T, body string) *fakeMappings {
	t.Helper()
	f := &fakeMappings{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.names = append(f.names, r.URL.Query().Get("FunctionName"))
		f.mu.Unlock()
		if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/2015-03-31/event-source-mappings") {
			http.Error(w, `{"message":"not ListEventSourceMappings"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeMappings) functions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.names)
}

// holdKey claims key as another worker would, for lease, with body's
// fingerprint (the handler's default), so a delivery of body finds it in
// progress.
func holdKey(t *testing.T, store idem.Store, key, body string, lease time.Duration) {
	t.Helper()
	k, err := idem.ClientKey(functionName, key)
	if err != nil {
		t.Fatal(err)
	}
	fp, err := idemjson.Fingerprint([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	c, err := store.Claim(context.Background(), idem.ClaimRequest{
		Key: k, Owner: storekit.NewOwner(), Fingerprint: fp, Now: now, LeaseUntil: now.Add(lease), ExpiresAt: now.Add(time.Hour)})
	if err != nil || !c.Claimed {
		t.Fatalf("claim %s: %+v, %v", k, c, err)
	}
}

// fakeSQS is an SQS endpoint (the JSON protocol) on loopback that logs
// every request and accepts it.
type fakeSQS struct {
	*httptest.Server
	mu    sync.Mutex
	calls []sqsCall
}

type sqsCall struct {
	Target            string
	QueueURL          string `json:"QueueUrl"`
	ReceiptHandle     string
	VisibilityTimeout int
}

func newFakeSQS(t *testing.T) *fakeSQS {
	t.Helper()
	f := &fakeSQS{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c sqsCall
		_ = json.NewDecoder(r.Body).Decode(&c)
		c.Target = r.Header.Get("X-Amz-Target")
		f.mu.Lock()
		f.calls = append(f.calls, c)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = w.Write([]byte("{}"))
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeSQS) all() []sqsCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sqsCall(nil), f.calls...)
}

// checkScenario sends the testdata events one invocation at a time and
// checks the batch item failures and the provider's request counts.
func checkScenario(t *testing.T, url string, f *fakeProvider) {
	t.Helper()
	steps := []struct {
		file string
		want []string // batch item failures, in order
	}{
		// order-1 twice (one request), no key, not JSON, a provider 500.
		{"sqs-first.json", []string{
			"a0000001-0000-4000-8000-000000000004",
			"a0000001-0000-4000-8000-000000000005",
			"a0000001-0000-4000-8000-000000000006",
		}},
		// The failed message comes back and succeeds; a re-send of
		// order-1 (new message id) is replayed.
		{"sqs-redelivery.json", nil},
		// FIFO: fifo-3 fails; fifo-4 (its group, after it) does not run;
		// fifo-5 (after it in the batch) is reported too.
		{"sqs-fifo.json", []string{
			"f0000003-0000-4000-8000-000000000003",
			"f0000003-0000-4000-8000-000000000004",
			"f0000003-0000-4000-8000-000000000005",
		}},
	}
	for _, s := range steps {
		got := invokeRIE(t, url, s.file)
		if !slices.Equal(got, s.want) {
			t.Errorf("%s: batchItemFailures %q, want %q", s.file, got, s.want)
		}
	}
	wantCounts := map[string]int{
		"summarise order 1":     1, // in-batch duplicate and a re-send: one request
		"summarise order 2":     1,
		"flaky order 3":         2, // a 500, then the redelivery
		"fifo one":              1,
		"fifo two":              1,
		"always-500 fifo three": 1,
		"fifo four":             0, // after a failure in its group: never sent
	}
	for prompt, want := range wantCounts {
		if got := f.count(prompt); got != want {
			t.Errorf("provider got %d requests for %q, want %d", got, prompt, want)
		}
	}
	for _, r := range f.all() {
		if r.Path != "/v1/chat/completions" || r.Body.Model != "test-model" {
			t.Errorf("provider request %+v", r)
		}
	}
}

// invokeRIE posts an event file to the emulator and returns the response's
// batch item failures, checking the response is what Lambda accepts.
func invokeRIE(t *testing.T, url, file string) []string {
	t.Helper()
	event, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	resp, err := client.Post(url, "application/json", bytes.NewReader(event))
	if err != nil {
		t.Fatalf("%s: invoke: %v", file, err)
	}
	defer resp.Body.Close()
	var raw bytes.Buffer
	_, _ = raw.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d: %s", file, resp.StatusCode, raw.Bytes())
	}
	// Decoded loosely, to see the names Lambda reads.
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw.Bytes(), &body); err != nil {
		t.Fatalf("%s: response %s: %v", file, raw.Bytes(), err)
	}
	if _, isErr := body["errorMessage"]; isErr {
		t.Fatalf("%s: the function failed: %s", file, raw.Bytes())
	}
	for k := range body {
		if k != "batchItemFailures" {
			t.Errorf("%s: unexpected member %q in %s", file, k, raw.Bytes())
		}
	}
	var failures []map[string]string
	if v := body["batchItemFailures"]; len(v) > 0 {
		if err := json.Unmarshal(v, &failures); err != nil {
			t.Fatalf("%s: batchItemFailures %s: %v", file, v, err)
		}
	}
	var ids []string
	for _, f := range failures {
		id, ok := f["itemIdentifier"]
		if !ok || id == "" || len(f) != 1 {
			t.Errorf("%s: bad batch item failure %v (Lambda would retry the whole batch)", file, f)
		}
		ids = append(ids, id)
	}
	return ids
}

// rieBinary finds aws-lambda-rie, failing the test with a hint when it is
// not installed.
func rieBinary(t *testing.T) string {
	t.Helper()
	path := os.Getenv(rieEnv)
	if path == "" {
		path = filepath.Join("..", rie.BinPath)
	}
	abs, err := rie.Find(path)
	if err != nil {
		t.Fatalf("%v, or set %s; -short skips this test", err, rieEnv)
	}
	return abs
}

// startRIE runs the emulator with the bootstrap on loopback ports of its
// own and returns its invocation URL. The emulator and the bootstrap it
// starts are stopped when the test ends; their output is logged if the
// test failed.
func startRIE(t *testing.T, rieBin, bootstrap string, f *fakeProvider, env ...string) string {
	t.Helper()
	url, _ := startRIEOutput(t, rieBin, bootstrap, f, env...)
	return url
}

// startRIEOutput is startRIE, with the emulator's and the bootstrap's
// output.
func startRIEOutput(t *testing.T, rieBin, bootstrap string, f *fakeProvider, env ...string) (string, *lockedBuffer) {
	t.Helper()
	out := &lockedBuffer{}
	e, err := rie.Start(context.Background(), rie.Config{
		RIE: rieBin, Bootstrap: bootstrap, Dir: filepath.Dir(bootstrap), LogLevel: "warn",
		Env: append([]string{
			"PATH=" + os.Getenv("PATH"),
			"HOME=" + t.TempDir(),
			"AWS_LAMBDA_FUNCTION_NAME=" + functionName,
			"AWS_LAMBDA_FUNCTION_TIMEOUT=60",
			"AWS_REGION=us-east-1",
			"AWS_EC2_METADATA_DISABLED=true",
			// The back-off is on by default: keep it on loopback (a closed
			// port) unless a test gives it a server (IDEMQ_SQS_ENDPOINT).
			"AWS_ENDPOINT_URL_SQS=http://127.0.0.1:1",
			// So is the start-up's read of the function's event source
			// mappings: refused, it is logged and the worker goes on.
			"AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:1",
			"IDEMQ_PROVIDER_URL=" + f.URL + "/v1",
			"IDEMQ_RECORD_EXPIRY=120h",
		}, env...),
		Output: out,
	})
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Cleanup(func() {
		e.Stop(10 * time.Second)
		if t.Failed() {
			t.Logf("emulator and bootstrap output:\n%s", out.String())
		}
	})
	return e.URL(), out
}

// checkConfigErrors runs the built bootstrap without its configuration:
// it must stop at once, naming what is missing.
func checkConfigErrors(t *testing.T, bootstrap string) {
	cmd := exec.Command(bootstrap)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "IDEMQ_RECORD_EXPIRY=two weeks"}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("bootstrap without configuration: %v, want exit status 1\n%s", err, out)
	}
	for _, name := range []string{"IDEMQ_TABLE", "IDEMQ_PROVIDER_URL", "IDEMQ_RECORD_EXPIRY"} {
		if !strings.Contains(string(out), name) {
			t.Errorf("start-up error does not name %s:\n%s", name, out)
		}
	}
}

// lockedBuffer collects a process's output from two pipes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
