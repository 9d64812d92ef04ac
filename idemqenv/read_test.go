package idemqenv

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// wantErr checks that err names each of want.
func wantErr(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one naming %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %s", err, w)
		}
	}
}

func TestReadWorker(t *testing.T) {
	t.Parallel()
	s, err := Read(env(
		"IDEMQ_TABLE", "idem", "IDEMQ_RECORD_EXPIRY", "120h19m0s", "IDEMQ_PROVIDER_URL", "https://api.openai.com/v1",
		"IDEMQ_BACKOFF", "true", "IDEMQ_LEASE", "90s", "IDEMQ_DYNAMODB_ENDPOINT", "http://127.0.0.1:8000", "IDEMQ_CONCURRENCY", "25", "IDEMQ_HEARTBEAT", "30s",
	))
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{Program: Worker, Store: stores.Settings{Kind: stores.DynamoDB, Table: "idem", DynamoDBEndpoint: "http://127.0.0.1:8000"},
		RecordExpiry: 120*time.Hour + 19*time.Minute, Lease: 90 * time.Second, Heartbeat: 30 * time.Second,
		Backoff: true, Provider: ProviderSettings{URL: "https://api.openai.com/v1"}, Concurrency: 25, MaxConcurrency: 1}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("settings\n got %+v\nwant %+v", s, want)
	}

	for v, want := range map[string]int{"": 0, "off": -1, "OFF": -1, "2048": 2048} {
		s, err := Read(env("IDEMQ_STORE", "memory", "IDEMQ_COMPRESS_ABOVE", v))
		if err != nil || s.CompressAbove != want {
			t.Errorf("IDEMQ_COMPRESS_ABOVE=%q: %d, %v; want %d", v, s.CompressAbove, err, want)
		}
		if cfg, err := idem.NewConfig(func(c *idem.Config) { c.CompressAbove = s.CompressAbove }); err != nil || (want == -1 && cfg.CompressAbove != -1) {
			t.Errorf("IDEMQ_COMPRESS_ABOVE=off does not turn compression off: %+v", cfg)
		}
	}
	for _, v := range []string{"0", "-5", "lots"} {
		_, err := Read(env("IDEMQ_STORE", "memory", "IDEMQ_COMPRESS_ABOVE", v))
		wantErr(t, err, "IDEMQ_COMPRESS_ABOVE")
	}

	// The memory store needs no table; the back-off is on unless turned off.
	s, err = Read(env("IDEMQ_STORE", "MEMORY", "IDEMQ_KEY_FIELD", "request.id", "IDEMQ_BACKOFF", "false"))
	if err != nil || s.Store.Kind != stores.Memory || s.Request.KeyField != "request.id" || s.Backoff || s.RecordExpiry != 0 || s.Concurrency != 0 {
		t.Errorf("memory settings %+v, %v", s, err)
	}
	if s, err = Read(env("IDEMQ_TABLE", "idem")); err != nil || !s.Backoff {
		t.Errorf("back-off by default: %+v, %v", s, err)
	}

	// The other stores, by URL.
	s, err = Read(env("IDEMQ_STORE", "postgres", "IDEMQ_STORE_URL", "postgres://u@127.0.0.1:5432/db", "IDEMQ_TABLE", "records"))
	if err != nil || s.Store != (stores.Settings{Kind: stores.Postgres, URL: "postgres://u@127.0.0.1:5432/db", Table: "records"}) {
		t.Errorf("postgres settings %+v, %v", s.Store, err)
	}
	s, err = Read(env("IDEMQ_STORE", "redis", "IDEMQ_STORE_URL", "redis://127.0.0.1:6379/0"))
	if err != nil || s.Store != (stores.Settings{Kind: stores.Redis, URL: "redis://127.0.0.1:6379/0"}) {
		t.Errorf("redis settings %+v, %v", s.Store, err)
	}

	// Offloading to a bucket: off unless a bucket is named; the prefix
	// defaults.
	if s.Blobs != (BlobSettings{}) {
		t.Errorf("blob settings without IDEMQ_BLOB_BUCKET: %+v", s.Blobs)
	}
	s, err = Read(env("IDEMQ_TABLE", "idem", "IDEMQ_BLOB_BUCKET", "results"))
	if err != nil || s.Blobs != (BlobSettings{Bucket: "results", Prefix: DefaultBlobPrefix}) {
		t.Errorf("bucket settings %+v, %v", s.Blobs, err)
	}
	s, err = Read(env("IDEMQ_TABLE", "idem", "IDEMQ_BLOB_BUCKET", "results", "IDEMQ_BLOB_PREFIX", "jobs/", "IDEMQ_OFFLOAD_ABOVE", "4096", "IDEMQ_S3_ENDPOINT", "http://127.0.0.1:9000"))
	if err != nil || s.Blobs != (BlobSettings{Bucket: "results", Prefix: "jobs/", OffloadAbove: 4096, S3Endpoint: "http://127.0.0.1:9000"}) {
		t.Errorf("bucket settings %+v, %v", s.Blobs, err)
	}

	// The back-off against a local SQS server.
	s, err = Read(env("IDEMQ_TABLE", "idem", "IDEMQ_BACKOFF", "true", "IDEMQ_SQS_ENDPOINT", "http://127.0.0.1:9324", "IDEMQ_QUEUE_URL", "http://sqs.us-east-1.localhost:9324/000000000000/jobs.fifo"))
	if err != nil || !s.Backoff || s.SQSEndpoint != "http://127.0.0.1:9324" || s.QueueURL != "http://sqs.us-east-1.localhost:9324/000000000000/jobs.fifo" {
		t.Errorf("local back-off settings %+v, %v", s, err)
	}

	// The provider's key from a secret; the tracing.
	s, err = Read(env("IDEMQ_TABLE", "idem", "IDEMQ_PROVIDER_API_KEY_SECRET", "idemq/provider-key", "IDEMQ_TRACING", "xray"))
	if err != nil || s.Provider != (ProviderSettings{APIKeySecret: "idemq/provider-key"}) || s.Tracing != "xray" {
		t.Errorf("secret and tracing %+v, %v", s, err)
	}
	for v, want := range map[string]string{"": "", "off": "", "otel": "otel", "XRAY": "xray"} {
		if s, err := Read(env("IDEMQ_TABLE", "t", "IDEMQ_TRACING", v)); err != nil || s.Tracing != want {
			t.Errorf("IDEMQ_TRACING=%q: %q, %v; want %q", v, s.Tracing, err, want)
		}
	}
}

// Every bad or missing variable is named, in one error.
func TestReadErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		env  func(string) string
		want []string // each named in the error
	}{
		{"nothing set", env(), []string{"IDEMQ_TABLE"}},
		{"bad mode", env("IDEMQ_MODE", "http"), []string{"IDEMQ_MODE", `"http"`}},
		{"bad durations", env("IDEMQ_TABLE", "t", "IDEMQ_RECORD_EXPIRY", "5 days", "IDEMQ_LEASE", "-1s"), []string{"IDEMQ_RECORD_EXPIRY", "IDEMQ_LEASE"}},
		{"heartbeat not a duration", env("IDEMQ_TABLE", "t", "IDEMQ_HEARTBEAT", "1"), []string{"IDEMQ_HEARTBEAT"}},
		{"bad concurrency", env("IDEMQ_TABLE", "t", "IDEMQ_CONCURRENCY", "0"), []string{"IDEMQ_CONCURRENCY"}},
		{"concurrency not a number", env("IDEMQ_TABLE", "t", "IDEMQ_CONCURRENCY", "ten"), []string{"IDEMQ_CONCURRENCY"}},
		{"bad bool", env("IDEMQ_TABLE", "t", "IDEMQ_BACKOFF", "yes please"), []string{"IDEMQ_BACKOFF"}},
		{"bad provider URL", env("IDEMQ_TABLE", "t", "IDEMQ_PROVIDER_URL", "api.openai.com"), []string{"IDEMQ_PROVIDER_URL"}},
		{"bad endpoint", env("IDEMQ_TABLE", "t", "IDEMQ_DYNAMODB_ENDPOINT", "localhost:8000"), []string{"IDEMQ_DYNAMODB_ENDPOINT"}},
		{"bad store", env("IDEMQ_STORE", "mongo"), []string{"IDEMQ_STORE", "want dynamodb, postgres, redis or memory"}},
		{"postgres without URL or table", env("IDEMQ_STORE", "postgres"), []string{"IDEMQ_STORE_URL", "IDEMQ_TABLE"}},
		{"redis with a postgres URL", env("IDEMQ_STORE", "redis", "IDEMQ_STORE_URL", "postgres://x"), []string{"IDEMQ_STORE_URL"}},
		{"store URL with dynamodb", env("IDEMQ_TABLE", "t", "IDEMQ_STORE_URL", "redis://x"), []string{"IDEMQ_STORE_URL is set but IDEMQ_STORE is dynamodb"}},
		{"bad SQS endpoint and queue URL", env("IDEMQ_TABLE", "t", "IDEMQ_BACKOFF", "true", "IDEMQ_SQS_ENDPOINT", "127.0.0.1:9324", "IDEMQ_QUEUE_URL", "jobs"), []string{"IDEMQ_SQS_ENDPOINT", "IDEMQ_QUEUE_URL"}},
		{"SQS endpoint and queue URL without back-off", env("IDEMQ_TABLE", "t", "IDEMQ_BACKOFF", "false",
			"IDEMQ_SQS_ENDPOINT", "http://127.0.0.1:9324", "IDEMQ_QUEUE_URL", "http://127.0.0.1:9324/000000000000/jobs"), []string{"IDEMQ_SQS_ENDPOINT", "IDEMQ_QUEUE_URL", "IDEMQ_BACKOFF"}},
		{"blob settings without a bucket", env("IDEMQ_TABLE", "t", "IDEMQ_BLOB_PREFIX", "r/", "IDEMQ_OFFLOAD_ABOVE", "100", "IDEMQ_S3_ENDPOINT", "http://127.0.0.1:9000"),
			[]string{"IDEMQ_BLOB_PREFIX", "IDEMQ_OFFLOAD_ABOVE", "IDEMQ_S3_ENDPOINT", "IDEMQ_BLOB_BUCKET"}},
		{"bad offload size", env("IDEMQ_TABLE", "t", "IDEMQ_BLOB_BUCKET", "b", "IDEMQ_OFFLOAD_ABOVE", "0"), []string{"IDEMQ_OFFLOAD_ABOVE"}},
		{"offload size not a number", env("IDEMQ_TABLE", "t", "IDEMQ_BLOB_BUCKET", "b", "IDEMQ_OFFLOAD_ABOVE", "8k"), []string{"IDEMQ_OFFLOAD_ABOVE"}},
		{"bad S3 endpoint", env("IDEMQ_TABLE", "t", "IDEMQ_BLOB_BUCKET", "b", "IDEMQ_S3_ENDPOINT", "127.0.0.1:9000"), []string{"IDEMQ_S3_ENDPOINT"}},
		{"bucket as a URL", env("IDEMQ_TABLE", "t", "IDEMQ_BLOB_BUCKET", "s3://b/results"), []string{"IDEMQ_BLOB_BUCKET"}},
		{"API key and API key secret", env("IDEMQ_TABLE", "t", "IDEMQ_PROVIDER_API_KEY", "sk-plain", "IDEMQ_PROVIDER_API_KEY_SECRET", "idemq/provider-key"), []string{"IDEMQ_PROVIDER_API_KEY", "IDEMQ_PROVIDER_API_KEY_SECRET"}},
		{"bad tracing", env("IDEMQ_TABLE", "t", "IDEMQ_TRACING", "jaeger"), []string{"IDEMQ_TRACING", "want off, otel or xray"}},
		{"two key sources", env("IDEMQ_TABLE", "t", "IDEMQ_KEY_FIELD", "id", "IDEMQ_KEY_ATTRIBUTE", "key"), []string{"IDEMQ_KEY_ATTRIBUTE", "a key has one source"}},
		{"a bad key field", env("IDEMQ_TABLE", "t", "IDEMQ_KEY_FIELDS", "a,,b"), []string{"IDEMQ_KEY_FIELDS"}},
		{"a bad fingerprint field", env("IDEMQ_TABLE", "t", "IDEMQ_FINGERPRINT_FIELDS", `a\`), []string{"IDEMQ_FINGERPRINT_FIELDS"}},
		{"a bad namespace", env("IDEMQ_TABLE", "t", "IDEMQ_NAMESPACE", "a\x00b"), []string{"IDEMQ_NAMESPACE"}},
		{"a bad key attribute", env("IDEMQ_TABLE", "t", "IDEMQ_KEY_ATTRIBUTE", "AWS.key"), []string{"IDEMQ_KEY_ATTRIBUTE"}},
		{"front-door settings in worker mode", env("IDEMQ_TABLE", "t", "IDEMQ_FRONTDOOR_QUEUE_URL", "http://q", "IDEMQ_FRONTDOOR_PATH", "/x", "IDEMQ_FRONTDOOR_MAX_BODY_BYTES", "9"),
			[]string{"IDEMQ_FRONTDOOR_QUEUE_URL is set but IDEMQ_MODE", "IDEMQ_FRONTDOOR_PATH", "IDEMQ_FRONTDOOR_MAX_BODY_BYTES", "IDEMQ_MODE=frontdoor"}},
		{"dispatch settings in worker mode", env("IDEMQ_TABLE", "t", "IDEMQ_DURABLE_FUNCTION", "f"), []string{"IDEMQ_DURABLE_FUNCTION is set but IDEMQ_MODE"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(c.env)
			wantErr(t, err, c.want...)
		})
	}

	// Many at once: one error naming each.
	_, err := Read(env("IDEMQ_STORE", "postgres", "IDEMQ_LEASE", "soon", "IDEMQ_CONCURRENCY", "0", "IDEMQ_BLOB_PREFIX", "x/", "IDEMQ_TRACING", "on", "IDEMQ_FRONTDOOR_PATH", "/p"))
	wantErr(t, err, "IDEMQ_TABLE", "IDEMQ_STORE_URL", "IDEMQ_LEASE", "IDEMQ_CONCURRENCY", "IDEMQ_BLOB_PREFIX", "IDEMQ_TRACING", "IDEMQ_FRONTDOOR_PATH")
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != 7 {
		t.Errorf("%d errors, want 7 (one a variable):\n%v", n, err)
	}
}

// The claim's settings the library does not check: a heartbeat the
// library would cut, an expiry no queue can use, and, with the queue's
// settings (IDEMQ_QUEUE, as the CDK stack writes them), an expiry shorter
// than the message lifetime or a lease a crashed worker's message cannot
// be retried after.
func TestReadClaim(t *testing.T) {
	t.Parallel()
	const stackQueue = `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`
	const endless = `{"retention":"336h","visibilityTimeout":"12h","maxReceives":1000}` // no default expiry covers it
	with := func(kv ...string) func(string) string { return env(append([]string{"IDEMQ_TABLE", "t"}, kv...)...) }

	s, err := Read(with("IDEMQ_QUEUE", stackQueue, "IDEMQ_RECORD_EXPIRY", "541h15m0s"))
	want := queue.Settings{Retention: 96 * time.Hour, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, DeadLetterRetention: 336 * time.Hour}
	if err != nil || s.Queue != want {
		t.Errorf("the stack's IDEMQ_QUEUE: %+v, %v; want %+v", s.Queue, err, want)
	}
	if s, err := Read(with("IDEMQ_QUEUE", `{"retention":"1h","visibilityTimeout":"1m","maxReceives":3}`)); err != nil || s.RecordExpiry != 0 {
		t.Errorf("default expiry with a 1 h queue: %+v, %v", s, err)
	}
	if _, err := Read(with("IDEMQ_QUEUE", stackQueue, "IDEMQ_LEASE", "1h", "IDEMQ_HEARTBEAT", "20m")); err != nil {
		t.Errorf("a 1 h lease with back-off on the stack's queue: %v", err)
	}
	// In consumer mode a claim without a lease of its own takes the
	// consumer's default lease, which a heartbeat of at most half of it
	// renews (idem's Config.Heartbeat with leasectx.WithDefaultLease).
	if s, err := Read(with("IDEMQ_CONSUMER_QUEUE_URL", "http://127.0.0.1:9324/000000000000/jobs", "IDEMQ_HEARTBEAT", "30s")); err != nil || s.Heartbeat != 30*time.Second || s.Lease != 0 {
		t.Errorf("a consumer's heartbeat without a lease: %+v, %v; want it taken", s, err)
	}
	for _, tt := range []struct {
		name string
		env  func(string) string
		want []string
	}{
		{"a heartbeat without a lease", with("IDEMQ_HEARTBEAT", "1h"), []string{"IDEMQ_HEARTBEAT", "IDEMQ_LEASE", "invocation's time left"}},
		{"an expiry of a second", with("IDEMQ_RECORD_EXPIRY", "1s"), []string{"IDEMQ_RECORD_EXPIRY", "1m0s"}},
		{"an expiry shorter than the message lifetime", with("IDEMQ_QUEUE", stackQueue, "IDEMQ_RECORD_EXPIRY", "96h"), []string{"IDEMQ_RECORD_EXPIRY", "IDEMQ_QUEUE", "message lifetime 97h0m0s"}},
		{"the default expiry for a queue it does not cover", with("IDEMQ_QUEUE", endless), []string{"IDEMQ_RECORD_EXPIRY", idem.DefaultExpiry.String(), "IDEMQ_QUEUE"}},
		{"a lease that spends every receive without back-off", with("IDEMQ_QUEUE", stackQueue, "IDEMQ_BACKOFF", "false", "IDEMQ_LEASE", "1h"), []string{"IDEMQ_LEASE", "IDEMQ_QUEUE", "max receives 5"}},
		{"a lease whose retry comes after the queue drops the message", with("IDEMQ_QUEUE", `{"retention":"1h","visibilityTimeout":"5m","maxReceives":10}`, "IDEMQ_LEASE", "56m"),
			[]string{"IDEMQ_LEASE", "IDEMQ_QUEUE", "retention 1h0m0s"}},
		{"settings that are not JSON", with("IDEMQ_QUEUE", "retention=96h"), []string{"IDEMQ_QUEUE"}},
		{"an unknown field", with("IDEMQ_QUEUE", `{"retention":"96h","visibilityTimeout":"30s","maxReceives":5,"receives":5}`), []string{"IDEMQ_QUEUE", "receives"}},
		{"settings SQS refuses", with("IDEMQ_QUEUE", `{"retention":"10s","visibilityTimeout":"30s","maxReceives":5}`), []string{"IDEMQ_QUEUE", "retention 10s"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(tt.env)
			wantErr(t, err, tt.want...)
		})
	}
}

func TestReadConsumer(t *testing.T) {
	t.Parallel()
	const q = "http://127.0.0.1:9324/000000000000/jobs"
	with := func(kv ...string) func(string) string {
		return env(append([]string{"IDEMQ_STORE", "memory"}, kv...)...)
	}
	s, err := Read(with("IDEMQ_CONSUMER_QUEUE_URL", q, "IDEMQ_CONSUMER_MAX_RUN_TIME", "2h", "IDEMQ_CONSUMER_MAX_BATCHES", "3",
		"IDEMQ_CONSUMER_GRACE_PERIOD", "25s", "IDEMQ_CONSUMER_VISIBILITY", "60s", "IDEMQ_HEALTH_ADDR", ":8080", "IDEMQ_BACKOFF", "false", "IDEMQ_SQS_ENDPOINT", "http://127.0.0.1:9324"))
	want := ConsumerSettings{QueueURL: q, MaxRunTime: 2 * time.Hour, MaxBatches: 3, GracePeriod: 25 * time.Second, Visibility: time.Minute, HealthAddr: ":8080"}
	if err != nil || s.Consumer != want || s.SQSEndpoint != "http://127.0.0.1:9324" {
		t.Errorf("consumer settings %+v, endpoint %q, %v; want %+v with the SQS endpoint (the consumer's, back-off or not)", s.Consumer, s.SQSEndpoint, err, want)
	}
	for _, tt := range []struct {
		name string
		env  func(string) string
		want string
	}{
		{"setting without a queue", with("IDEMQ_CONSUMER_GRACE_PERIOD", "10s"), "IDEMQ_CONSUMER_GRACE_PERIOD is set but IDEMQ_CONSUMER_QUEUE_URL is not: it is a setting of consumer mode"},
		{"not a URL", with("IDEMQ_CONSUMER_QUEUE_URL", "jobs"), "IDEMQ_CONSUMER_QUEUE_URL"},
		{"bad duration", with("IDEMQ_CONSUMER_QUEUE_URL", q, "IDEMQ_CONSUMER_MAX_RUN_TIME", "an hour"), "IDEMQ_CONSUMER_MAX_RUN_TIME"},
		{"bad batches", with("IDEMQ_CONSUMER_QUEUE_URL", q, "IDEMQ_CONSUMER_MAX_BATCHES", "0"), "IDEMQ_CONSUMER_MAX_BATCHES"},
		{"bad health address", with("IDEMQ_CONSUMER_QUEUE_URL", q, "IDEMQ_HEALTH_ADDR", "8080"), "IDEMQ_HEALTH_ADDR"},
		{"two queues", with("IDEMQ_CONSUMER_QUEUE_URL", q, "IDEMQ_QUEUE_URL", "http://127.0.0.1:9324/000000000000/other"), "IDEMQ_QUEUE_URL and IDEMQ_CONSUMER_QUEUE_URL name different queues"},
	} {
		_, err := Read(tt.env)
		wantErr(t, err, tt.want)
	}
}

func TestReadFrontDoor(t *testing.T) {
	t.Parallel()
	const q = "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"
	s, err := Read(env("IDEMQ_MODE", "FrontDoor", "IDEMQ_TABLE", "t", "IDEMQ_NAMESPACE", "summarise", "IDEMQ_FRONTDOOR_QUEUE_URL", q, "IDEMQ_FRONTDOOR_PATH", "/v1/jobs", "IDEMQ_FRONTDOOR_MAX_BODY_BYTES", "1000"))
	want := FrontDoorSettings{QueueURL: q, Path: "/v1/jobs", MaxBodyBytes: 1000, Scope: ScopeIAM}
	if err != nil || s.Program != FrontDoor || s.FrontDoor != want || s.Request.Namespace != "summarise" || s.Backoff {
		t.Errorf("front door %+v, %v; want %+v", s, err, want)
	}
	for _, tc := range []struct{ addr, scope, want string }{
		{"", "", ScopeIAM}, {"", "none", ScopeNone}, {"", "IAM", ScopeIAM}, {"", "iam-session", ScopeIAMSession}, {"", "IAM-Session", ScopeIAMSession},
		{"127.0.0.1:8080", "", ScopeNone}, {"127.0.0.1:8080", "none", ScopeNone},
	} {
		s, err := Read(env("IDEMQ_MODE", "frontdoor", "IDEMQ_TABLE", "t", "IDEMQ_NAMESPACE", "summarise", "IDEMQ_FRONTDOOR_QUEUE_URL", q, "IDEMQ_FRONTDOOR_ADDR", tc.addr, "IDEMQ_FRONTDOOR_SCOPE", tc.scope))
		if err != nil || s.FrontDoor.Scope != tc.want {
			t.Errorf("IDEMQ_FRONTDOOR_ADDR=%q IDEMQ_FRONTDOOR_SCOPE=%q: scope %q, %v; want %q", tc.addr, tc.scope, s.FrontDoor.Scope, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		env  func(string) string
		want []string
	}{
		{"no queue, no namespace", env("IDEMQ_TABLE", "t", "IDEMQ_MODE", "frontdoor"), []string{"IDEMQ_FRONTDOOR_QUEUE_URL is required", "IDEMQ_NAMESPACE is required"}},
		{"bad queue URL", env("IDEMQ_TABLE", "t", "IDEMQ_MODE", "frontdoor", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", "requests"), []string{"IDEMQ_FRONTDOOR_QUEUE_URL"}},
		{"bad body size", env("IDEMQ_TABLE", "t", "IDEMQ_MODE", "frontdoor", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", q, "IDEMQ_FRONTDOOR_MAX_BODY_BYTES", "0"), []string{"IDEMQ_FRONTDOOR_MAX_BODY_BYTES"}},
		{"and a consumer", env("IDEMQ_TABLE", "t", "IDEMQ_MODE", "frontdoor", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", q, "IDEMQ_CONSUMER_QUEUE_URL", q), []string{"IDEMQ_CONSUMER_QUEUE_URL", "IDEMQ_MODE"}},
		{"bad scope", env("IDEMQ_TABLE", "t", "IDEMQ_MODE", "frontdoor", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", q, "IDEMQ_FRONTDOOR_SCOPE", "account"), []string{"IDEMQ_FRONTDOOR_SCOPE"}},
		{"IAM scope off Lambda", env("IDEMQ_TABLE", "t", "IDEMQ_MODE", "frontdoor", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", q, "IDEMQ_FRONTDOOR_SCOPE", "iam", "IDEMQ_FRONTDOOR_ADDR", "127.0.0.1:8080"),
			[]string{"IDEMQ_FRONTDOOR_SCOPE=iam with", "IDEMQ_FRONTDOOR_ADDR"}},
		{"IAM session scope off Lambda", env("IDEMQ_TABLE", "t", "IDEMQ_MODE", "frontdoor", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", q, "IDEMQ_FRONTDOOR_SCOPE", "iam-session", "IDEMQ_FRONTDOOR_ADDR", "127.0.0.1:8080"),
			[]string{"IDEMQ_FRONTDOOR_SCOPE=iam-session with", "IDEMQ_FRONTDOOR_ADDR"}},
		{"a worker's setting", env("IDEMQ_TABLE", "t", "IDEMQ_MODE", "frontdoor", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", q, "IDEMQ_LEASE", "1m"), []string{"IDEMQ_LEASE is set but IDEMQ_MODE is frontdoor"}},
		{"scope in worker mode", env("IDEMQ_TABLE", "t", "IDEMQ_FRONTDOOR_SCOPE", "none"), []string{"IDEMQ_FRONTDOOR_SCOPE", "IDEMQ_MODE"}},
	} {
		_, err := Read(tc.env)
		wantErr(t, err, tc.want...)
	}
}

func TestReadDispatch(t *testing.T) {
	t.Parallel()
	with := func(kv ...string) func(string) string {
		return env(append([]string{"IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "summarise:prod"}, kv...)...)
	}
	s, err := Read(with("IDEMQ_CONSUMER_QUEUE_URL", "http://127.0.0.1:9324/000000000000/jobs", "IDEMQ_SQS_ENDPOINT", "http://127.0.0.1:9324",
		"IDEMQ_NAMESPACE", "summarise", "IDEMQ_KEY_FIELDS", "a,b", "IDEMQ_CONCURRENCY", "4"))
	if err != nil || s.Program != Dispatch || s.Dispatch != (DispatchSettings{Function: "summarise:prod"}) || s.Request.Namespace != "summarise" ||
		!slices.Equal(s.Request.KeyFields, []string{"a", "b"}) || s.Concurrency != 4 || s.Store != (stores.Settings{}) {
		t.Errorf("dispatch %+v, %v", s, err)
	}
	for _, tt := range []struct {
		name string
		env  func(string) string
		want string
	}{
		{"unknown mode", env("IDEMQ_MODE", "dispatcher"), "IDEMQ_MODE"},
		{"no function", env("IDEMQ_MODE", "dispatch"), "IDEMQ_DURABLE_FUNCTION is required"},
		{"a store", with("IDEMQ_TABLE", "idempotency"), "IDEMQ_TABLE is set but IDEMQ_MODE is dispatch: dispatch mode keeps no records"},
		{"a provider", with("IDEMQ_PROVIDER_URL", "http://127.0.0.1:1"), "IDEMQ_PROVIDER_URL is set but IDEMQ_MODE"},
		{"a fingerprint", with("IDEMQ_FINGERPRINT_FIELDS", "a"), "IDEMQ_FINGERPRINT_FIELDS is set but IDEMQ_MODE"},
		{"the retired name prefix", with("IDEMQ_DURABLE_NAME_PREFIX", "summ-"), "IDEMQ_DURABLE_NAME_PREFIX is no longer read: each durable execution is named after the record key"},
		{"two key sources", with("IDEMQ_KEY_FIELD", "id", "IDEMQ_KEY_FIELDS", "a,b"), "IDEMQ_KEY_FIELD"},
		{"bad endpoint", with("IDEMQ_LAMBDA_ENDPOINT", "localhost"), "IDEMQ_LAMBDA_ENDPOINT"},
		{"SQS endpoint without a consumer", with("IDEMQ_SQS_ENDPOINT", "http://127.0.0.1:9324"), "IDEMQ_SQS_ENDPOINT is set but IDEMQ_CONSUMER_QUEUE_URL"},
		{"bad concurrency", with("IDEMQ_CONCURRENCY", "0"), "IDEMQ_CONCURRENCY"},
	} {
		_, err := Read(tt.env)
		wantErr(t, err, tt.want)
	}
}

// The command reads its own variables, overridden by its flags (it
// passes a getenv that looks at them first), names each flag with its
// variable, ignores the worker's other variables, and asks for a store's
// table and URL when it opens one (CheckStore).
func TestReadCommand(t *testing.T) {
	t.Parallel()
	s, err := ReadFor(Command, env("IDEMQ_TABLE", "t", "IDEMQ_NAMESPACE", "ns", "IDEMQ_KEY_FIELDS", "document_id,version", "IDEMQ_RECORD_EXPIRY", "100h", "IDEMQ_BLOB_BUCKET", "b",
		"IDEMQ_PROVIDER_URL", "not read", "IDEMQ_LEASE", "garbage", "IDEMQ_MODE", "frontdoor", "IDEMQ_FRONTDOOR_PATH", "x", "IDEMQ_DURABLE_NAME_PREFIX", "retired"))
	want := Settings{Program: Command, Store: stores.Settings{Kind: stores.DynamoDB, Table: "t"},
		Request:      request.Identity{Namespace: "ns", KeyFields: []string{"document_id", "version"}},
		RecordExpiry: 100 * time.Hour, Blobs: BlobSettings{Bucket: "b", Prefix: DefaultBlobPrefix}}
	if err != nil || !reflect.DeepEqual(s, want) {
		t.Errorf("command\n got %+v, %v\nwant %+v", s, err, want)
	}
	for _, c := range []struct {
		env  func(string) string
		want []string
	}{
		{env(), []string{"IDEMQ_TABLE (or --table) is required: the name of the DynamoDB idempotency table"}},
		{env("IDEMQ_STORE", "redis"), []string{"IDEMQ_STORE_URL (or --store-url) is required; want a redis:// or rediss:// URL"}},
		{env("IDEMQ_STORE", "Mongo"), []string{`IDEMQ_STORE (or --store)="Mongo": want dynamodb, postgres, redis or memory`}},
		{env("IDEMQ_STORE", "memory"), []string{"IDEMQ_STORE (or --store)=memory keeps records in the worker's process"}},
		{env("IDEMQ_STORE", "postgres", "IDEMQ_STORE_URL", "mysql://u:s3cret@h/db"), []string{"IDEMQ_TABLE (or --table) is required with IDEMQ_STORE=postgres",
			`IDEMQ_STORE_URL (or --store-url)=mysql://u:xxxxx@h/db: the scheme is "mysql"`}},
		{env("IDEMQ_TABLE", "t", "IDEMQ_STORE_URL", "redis://h"), []string{"IDEMQ_STORE_URL (or --store-url) is set but IDEMQ_STORE is dynamodb"}},
		{env("IDEMQ_TABLE", "t", "IDEMQ_RECORD_EXPIRY", "-1h"), []string{`IDEMQ_RECORD_EXPIRY (or --record-expiry)="-1h": must be positive`}},
		{env("IDEMQ_TABLE", "t", "IDEMQ_KEY_FIELD", "id", "IDEMQ_KEY_ATTRIBUTE", "key"), []string{"IDEMQ_KEY_ATTRIBUTE (or --key-attribute)", "a key has one source"}},
		{env("IDEMQ_TABLE", "t", "IDEMQ_KEY_FIELDS", "a,,b"), []string{"IDEMQ_KEY_FIELDS (or --key-fields)", "none empty"}},
	} {
		s, err := ReadFor(Command, c.env)
		err = errors.Join(err, CheckStore(Command, s.Store)) // as the command opens the store
		wantErr(t, err, c.want...)
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the password is shown: %v", err)
		}
	}
	// A command that opens no store (redrive) needs none named.
	if s, err := ReadFor(Command, env("IDEMQ_SQS_ENDPOINT", "http://127.0.0.1:9324")); err != nil || s.SQSEndpoint != "http://127.0.0.1:9324" {
		t.Errorf("no store: %+v, %v", s, err)
	}
	if _, err := ReadFor(Command, env("IDEMQ_SQS_ENDPOINT", "127.0.0.1:9324")); err == nil || !strings.Contains(err.Error(), "IDEMQ_SQS_ENDPOINT (or --sqs-endpoint)") {
		t.Errorf("a bad SQS endpoint: %v; want it named with its flag", err)
	}
}

func TestMaxConcurrency(t *testing.T) {
	t.Parallel()
	// As aws-lambda-go v1.55.1 reads it (lambdacontext.MaxConcurrency):
	// anything but a whole number of at least 1 is 1.
	for v, want := range map[string]int{"": 1, "1": 1, "8": 8, "64": 64, "0": 1, "-3": 1, "eight": 1, "2.5": 1} {
		if s, err := Read(env("IDEMQ_STORE", "memory", "AWS_LAMBDA_MAX_CONCURRENCY", v)); err != nil || s.MaxConcurrency != want {
			t.Errorf("AWS_LAMBDA_MAX_CONCURRENCY=%q: %d, %v; want %d", v, s.MaxConcurrency, err, want)
		}
	}
}

// A value that may hold a secret is never shown but redacted.
func TestReadRedacts(t *testing.T) {
	t.Parallel()
	_, err := Read(env("IDEMQ_TABLE", "t", "IDEMQ_PROVIDER_URL", "ftp://u:s3cr3t@p.example/v1", "IDEMQ_DYNAMODB_ENDPOINT", "http://u:s3cr3t@h:8000:99",
		"IDEMQ_STORE", "postgres", "IDEMQ_STORE_URL", "host=h password=s3cr3t", "IDEMQ_PROVIDER_API_KEY", "s3cr3t", "IDEMQ_PROVIDER_API_KEY_SECRET", "x"))
	wantErr(t, err, "IDEMQ_PROVIDER_URL=ftp://u:xxxxx@p.example/v1", "IDEMQ_DYNAMODB_ENDPOINT", "IDEMQ_STORE_URL (value not shown", "IDEMQ_PROVIDER_API_KEY", "IDEMQ_PROVIDER_API_KEY_SECRET")
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("a secret is shown: %v", err)
	}
}

func TestSettingError(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want string
	}{
		{&idem.ConfigError{Package: "idem", Field: "Heartbeat", Value: "4s", Err: optkit.ErrNil}, "IDEMQ_HEARTBEAT: idem: Heartbeat"},
		{&idem.ConfigError{Package: "durable", Field: "Concurrency", Value: "0", Err: optkit.ErrNil}, "IDEMQ_CONCURRENCY: durable"},
		{&idem.ConfigError{Package: "handler", Field: "KeyFunc", Err: optkit.ErrNil}, "handler: KeyFunc"},
	} {
		err := SettingError(c.err)
		if !strings.HasPrefix(err.Error(), c.want) || !errors.Is(err, c.err) {
			t.Errorf("SettingError(%v) = %v; want it to start %q and wrap it", c.err, err, c.want)
		}
	}
	// Each refusal of a joined error, named.
	lease, plain := &idem.ConfigError{Package: "idem", Field: "Lease", Err: optkit.ErrNil}, errors.New("x")
	err := SettingError(errors.Join(lease, plain, &idem.ConfigError{Package: "handler", Field: "Concurrency", Err: optkit.ErrNil}))
	if want := "IDEMQ_LEASE: idem: Lease: is nil\nx\n" + "IDEMQ_CONCURRENCY: handler: Concurrency: is nil"; err.Error() != want || !errors.Is(err, lease) || !errors.Is(err, plain) {
		t.Errorf("SettingError of joined refusals = %q; want %q, wrapping each", err, want)
	}
	if SettingError(plain) != plain {
		t.Error("SettingError changed an error that is no setting's")
	}
}
