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
		Table, "idem", RecordExpiry, "120h19m0s", ProviderURL, "https://api.openai.com/v1",
		Backoff, "true", Lease, "90s", DynamoDBEndpoint, "http://127.0.0.1:8000", Concurrency, "25", Heartbeat, "30s",
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
		s, err := Read(env(Store, "memory", compressAbove, v))
		if err != nil || s.CompressAbove != want {
			t.Errorf("%s=%q: %d, %v; want %d", compressAbove, v, s.CompressAbove, err, want)
		}
		if cfg, err := idem.NewConfig(func(c *idem.Config) { c.CompressAbove = s.CompressAbove }); err != nil || (want == -1 && cfg.CompressAbove != -1) {
			t.Errorf("%s=off does not turn compression off: %+v", compressAbove, cfg)
		}
	}
	for _, v := range []string{"0", "-5", "lots"} {
		_, err := Read(env(Store, "memory", compressAbove, v))
		wantErr(t, err, compressAbove)
	}

	// The memory store needs no table; the back-off is on unless turned off.
	s, err = Read(env(Store, "MEMORY", KeyField, "request.id", Backoff, "false"))
	if err != nil || s.Store.Kind != stores.Memory || s.Request.KeyField != "request.id" || s.Backoff || s.RecordExpiry != 0 || s.Concurrency != 0 {
		t.Errorf("memory settings %+v, %v", s, err)
	}
	if s, err = Read(env(Table, "idem")); err != nil || !s.Backoff {
		t.Errorf("back-off by default: %+v, %v", s, err)
	}

	// The other stores, by URL.
	s, err = Read(env(Store, "postgres", StoreURL, "postgres://u@127.0.0.1:5432/db", Table, "records"))
	if err != nil || s.Store != (stores.Settings{Kind: stores.Postgres, URL: "postgres://u@127.0.0.1:5432/db", Table: "records"}) {
		t.Errorf("postgres settings %+v, %v", s.Store, err)
	}
	s, err = Read(env(Store, "redis", StoreURL, "redis://127.0.0.1:6379/0"))
	if err != nil || s.Store != (stores.Settings{Kind: stores.Redis, URL: "redis://127.0.0.1:6379/0"}) {
		t.Errorf("redis settings %+v, %v", s.Store, err)
	}

	// Offloading to a bucket: off unless a bucket is named; the prefix
	// defaults.
	if s.Blobs != (BlobSettings{}) {
		t.Errorf("blob settings without %s: %+v", BlobBucket, s.Blobs)
	}
	s, err = Read(env(Table, "idem", BlobBucket, "results"))
	if err != nil || s.Blobs != (BlobSettings{Bucket: "results", Prefix: DefaultBlobPrefix}) {
		t.Errorf("bucket settings %+v, %v", s.Blobs, err)
	}
	s, err = Read(env(Table, "idem", BlobBucket, "results", BlobPrefix, "jobs/", OffloadAbove, "4096", S3Endpoint, "http://127.0.0.1:9000"))
	if err != nil || s.Blobs != (BlobSettings{Bucket: "results", Prefix: "jobs/", OffloadAbove: 4096, S3Endpoint: "http://127.0.0.1:9000"}) {
		t.Errorf("bucket settings %+v, %v", s.Blobs, err)
	}

	// The back-off against a local SQS server.
	s, err = Read(env(Table, "idem", Backoff, "true", SQSEndpoint, "http://127.0.0.1:9324", QueueURL, "http://sqs.us-east-1.localhost:9324/000000000000/jobs.fifo"))
	if err != nil || !s.Backoff || s.SQSEndpoint != "http://127.0.0.1:9324" || s.QueueURL != "http://sqs.us-east-1.localhost:9324/000000000000/jobs.fifo" {
		t.Errorf("local back-off settings %+v, %v", s, err)
	}

	// The provider's key from a secret; the tracing.
	s, err = Read(env(Table, "idem", ProviderAPIKeySecret, "idemq/provider-key", Tracing, "xray"))
	if err != nil || s.Provider != (ProviderSettings{APIKeySecret: "idemq/provider-key"}) || s.Tracing != "xray" {
		t.Errorf("secret and tracing %+v, %v", s, err)
	}
	for v, want := range map[string]string{"": "", "off": "", "otel": "otel", "XRAY": "xray"} {
		if s, err := Read(env(Table, "t", Tracing, v)); err != nil || s.Tracing != want {
			t.Errorf("%s=%q: %q, %v; want %q", Tracing, v, s.Tracing, err, want)
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
		{"nothing set", env(), []string{Table}},
		{"bad mode", env(Mode, "http"), []string{Mode, `"http"`}},
		{"bad durations", env(Table, "t", RecordExpiry, "5 days", Lease, "-1s"), []string{RecordExpiry, Lease}},
		{"heartbeat not a duration", env(Table, "t", Heartbeat, "1"), []string{Heartbeat}},
		{"bad concurrency", env(Table, "t", Concurrency, "0"), []string{Concurrency}},
		{"concurrency not a number", env(Table, "t", Concurrency, "ten"), []string{Concurrency}},
		{"bad bool", env(Table, "t", Backoff, "yes please"), []string{Backoff}},
		{"bad provider URL", env(Table, "t", ProviderURL, "api.openai.com"), []string{ProviderURL}},
		{"bad endpoint", env(Table, "t", DynamoDBEndpoint, "localhost:8000"), []string{DynamoDBEndpoint}},
		{"bad store", env(Store, "mongo"), []string{Store, "want dynamodb, postgres, redis or memory"}},
		{"postgres without URL or table", env(Store, "postgres"), []string{StoreURL, Table}},
		{"redis with a postgres URL", env(Store, "redis", StoreURL, "postgres://x"), []string{StoreURL}},
		{"store URL with dynamodb", env(Table, "t", StoreURL, "redis://x"), []string{StoreURL + " is set but " + Store + " is dynamodb"}},
		{"bad SQS endpoint and queue URL", env(Table, "t", Backoff, "true", SQSEndpoint, "127.0.0.1:9324", QueueURL, "jobs"), []string{SQSEndpoint, QueueURL}},
		{"SQS endpoint and queue URL without back-off", env(Table, "t", Backoff, "false",
			SQSEndpoint, "http://127.0.0.1:9324", QueueURL, "http://127.0.0.1:9324/000000000000/jobs"), []string{SQSEndpoint, QueueURL, Backoff}},
		{"blob settings without a bucket", env(Table, "t", BlobPrefix, "r/", OffloadAbove, "100", S3Endpoint, "http://127.0.0.1:9000"),
			[]string{BlobPrefix, OffloadAbove, S3Endpoint, BlobBucket}},
		{"bad offload size", env(Table, "t", BlobBucket, "b", OffloadAbove, "0"), []string{OffloadAbove}},
		{"offload size not a number", env(Table, "t", BlobBucket, "b", OffloadAbove, "8k"), []string{OffloadAbove}},
		{"bad S3 endpoint", env(Table, "t", BlobBucket, "b", S3Endpoint, "127.0.0.1:9000"), []string{S3Endpoint}},
		{"bucket as a URL", env(Table, "t", BlobBucket, "s3://b/results"), []string{BlobBucket}},
		{"API key and API key secret", env(Table, "t", ProviderAPIKey, "sk-plain", ProviderAPIKeySecret, "idemq/provider-key"), []string{ProviderAPIKey, ProviderAPIKeySecret}},
		{"bad tracing", env(Table, "t", Tracing, "jaeger"), []string{Tracing, "want off, otel or xray"}},
		{"two key sources", env(Table, "t", KeyField, "id", KeyAttribute, "key"), []string{KeyAttribute, "a key has one source"}},
		{"a bad key field", env(Table, "t", KeyFields, "a,,b"), []string{KeyFields}},
		{"a bad fingerprint field", env(Table, "t", FingerprintFields, `a\`), []string{FingerprintFields}},
		{"a bad namespace", env(Table, "t", Namespace, "a\x00b"), []string{Namespace}},
		{"a bad key attribute", env(Table, "t", KeyAttribute, "AWS.key"), []string{KeyAttribute}},
		{"front-door settings in worker mode", env(Table, "t", FrontDoorQueueURL, "http://q", frontDoorPath, "/x", frontDoorMaxBodyBytes, "9"),
			[]string{FrontDoorQueueURL + " is set but " + Mode, frontDoorPath, frontDoorMaxBodyBytes, Mode + "=frontdoor"}},
		{"dispatch settings in worker mode", env(Table, "t", DurableFunction, "f"), []string{DurableFunction + " is set but " + Mode}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(c.env)
			wantErr(t, err, c.want...)
		})
	}

	// Many at once: one error naming each.
	_, err := Read(env(Store, "postgres", Lease, "soon", Concurrency, "0", BlobPrefix, "x/", Tracing, "on", frontDoorPath, "/p"))
	wantErr(t, err, Table, StoreURL, Lease, Concurrency, BlobPrefix, Tracing, frontDoorPath)
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
	with := func(kv ...string) func(string) string { return env(append([]string{Table, "t"}, kv...)...) }

	s, err := Read(with(Queue, stackQueue, RecordExpiry, "541h15m0s"))
	want := queue.Settings{Retention: 96 * time.Hour, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, DeadLetterRetention: 336 * time.Hour}
	if err != nil || s.Queue != want {
		t.Errorf("the stack's IDEMQ_QUEUE: %+v, %v; want %+v", s.Queue, err, want)
	}
	if s, err := Read(with(Queue, `{"retention":"1h","visibilityTimeout":"1m","maxReceives":3}`)); err != nil || s.RecordExpiry != 0 {
		t.Errorf("default expiry with a 1 h queue: %+v, %v", s, err)
	}
	if _, err := Read(with(Queue, stackQueue, Lease, "1h", Heartbeat, "20m")); err != nil {
		t.Errorf("a 1 h lease with back-off on the stack's queue: %v", err)
	}
	// In consumer mode a claim without a lease of its own takes the
	// consumer's default lease, which a heartbeat of at most half of it
	// renews (idem's Config.Heartbeat with leasectx.WithDefaultLease).
	if s, err := Read(with(ConsumerQueueURL, "http://127.0.0.1:9324/000000000000/jobs", Heartbeat, "30s")); err != nil || s.Heartbeat != 30*time.Second || s.Lease != 0 {
		t.Errorf("a consumer's heartbeat without a lease: %+v, %v; want it taken", s, err)
	}
	for _, tt := range []struct {
		name string
		env  func(string) string
		want []string
	}{
		{"a heartbeat without a lease", with(Heartbeat, "1h"), []string{Heartbeat, Lease, "invocation's time left"}},
		{"an expiry of a second", with(RecordExpiry, "1s"), []string{RecordExpiry, "1m0s"}},
		{"an expiry shorter than the message lifetime", with(Queue, stackQueue, RecordExpiry, "96h"), []string{RecordExpiry, Queue, "message lifetime 97h0m0s"}},
		{"the default expiry for a queue it does not cover", with(Queue, endless), []string{RecordExpiry, idem.DefaultExpiry.String(), Queue}},
		{"a lease that spends every receive without back-off", with(Queue, stackQueue, Backoff, "false", Lease, "1h"), []string{Lease, Queue, "max receives 5"}},
		{"a lease whose retry comes after the queue drops the message", with(Queue, `{"retention":"1h","visibilityTimeout":"5m","maxReceives":10}`, Lease, "56m"),
			[]string{Lease, Queue, "retention 1h0m0s"}},
		{"settings that are not JSON", with(Queue, "retention=96h"), []string{Queue}},
		{"an unknown field", with(Queue, `{"retention":"96h","visibilityTimeout":"30s","maxReceives":5,"receives":5}`), []string{Queue, "receives"}},
		{"settings SQS refuses", with(Queue, `{"retention":"10s","visibilityTimeout":"30s","maxReceives":5}`), []string{Queue, "retention 10s"}},
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
	with := func(kv ...string) func(string) string { return env(append([]string{Store, "memory"}, kv...)...) }
	s, err := Read(with(ConsumerQueueURL, q, ConsumerMaxRunTime, "2h", ConsumerMaxBatches, "3",
		ConsumerGracePeriod, "25s", ConsumerVisibility, "60s", HealthAddr, ":8080", Backoff, "false", SQSEndpoint, "http://127.0.0.1:9324"))
	want := ConsumerSettings{QueueURL: q, MaxRunTime: 2 * time.Hour, MaxBatches: 3, GracePeriod: 25 * time.Second, Visibility: time.Minute, HealthAddr: ":8080"}
	if err != nil || s.Consumer != want || s.SQSEndpoint != "http://127.0.0.1:9324" {
		t.Errorf("consumer settings %+v, endpoint %q, %v; want %+v with the SQS endpoint (the consumer's, back-off or not)", s.Consumer, s.SQSEndpoint, err, want)
	}
	for _, tt := range []struct {
		name string
		env  func(string) string
		want string
	}{
		{"setting without a queue", with(ConsumerGracePeriod, "10s"), ConsumerGracePeriod + " is set but " + ConsumerQueueURL + " is not: it is a setting of consumer mode"},
		{"not a URL", with(ConsumerQueueURL, "jobs"), ConsumerQueueURL},
		{"bad duration", with(ConsumerQueueURL, q, ConsumerMaxRunTime, "an hour"), ConsumerMaxRunTime},
		{"bad batches", with(ConsumerQueueURL, q, ConsumerMaxBatches, "0"), ConsumerMaxBatches},
		{"bad health address", with(ConsumerQueueURL, q, HealthAddr, "8080"), HealthAddr},
		{"two queues", with(ConsumerQueueURL, q, QueueURL, "http://127.0.0.1:9324/000000000000/other"), QueueURL + " and " + ConsumerQueueURL + " name different queues"},
	} {
		_, err := Read(tt.env)
		wantErr(t, err, tt.want)
	}
}

func TestReadFrontDoor(t *testing.T) {
	t.Parallel()
	const q = "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs"
	s, err := Read(env(Mode, "FrontDoor", Table, "t", Namespace, "summarise", FrontDoorQueueURL, q, frontDoorPath, "/v1/jobs", frontDoorMaxBodyBytes, "1000"))
	want := FrontDoorSettings{QueueURL: q, Path: "/v1/jobs", MaxBodyBytes: 1000, Scope: ScopeIAM}
	if err != nil || s.Program != FrontDoor || s.FrontDoor != want || s.Request.Namespace != "summarise" || s.Backoff {
		t.Errorf("front door %+v, %v; want %+v", s, err, want)
	}
	for _, tc := range []struct{ addr, scope, want string }{
		{"", "", ScopeIAM}, {"", "none", ScopeNone}, {"", "IAM", ScopeIAM}, {"", "iam-session", ScopeIAMSession}, {"", "IAM-Session", ScopeIAMSession},
		{"127.0.0.1:8080", "", ScopeNone}, {"127.0.0.1:8080", "none", ScopeNone},
	} {
		s, err := Read(env(Mode, "frontdoor", Table, "t", Namespace, "summarise", FrontDoorQueueURL, q, FrontDoorAddr, tc.addr, FrontDoorScope, tc.scope))
		if err != nil || s.FrontDoor.Scope != tc.want {
			t.Errorf("%s=%q %s=%q: scope %q, %v; want %q", FrontDoorAddr, tc.addr, FrontDoorScope, tc.scope, s.FrontDoor.Scope, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		env  func(string) string
		want []string
	}{
		{"no queue, no namespace", env(Table, "t", Mode, "frontdoor"), []string{FrontDoorQueueURL + " is required", Namespace + " is required"}},
		{"bad queue URL", env(Table, "t", Mode, "frontdoor", Namespace, "n", FrontDoorQueueURL, "requests"), []string{FrontDoorQueueURL}},
		{"bad body size", env(Table, "t", Mode, "frontdoor", Namespace, "n", FrontDoorQueueURL, q, frontDoorMaxBodyBytes, "0"), []string{frontDoorMaxBodyBytes}},
		{"and a consumer", env(Table, "t", Mode, "frontdoor", Namespace, "n", FrontDoorQueueURL, q, ConsumerQueueURL, q), []string{ConsumerQueueURL, Mode}},
		{"bad scope", env(Table, "t", Mode, "frontdoor", Namespace, "n", FrontDoorQueueURL, q, FrontDoorScope, "account"), []string{FrontDoorScope}},
		{"IAM scope off Lambda", env(Table, "t", Mode, "frontdoor", Namespace, "n", FrontDoorQueueURL, q, FrontDoorScope, "iam", FrontDoorAddr, "127.0.0.1:8080"),
			[]string{FrontDoorScope + "=iam with", FrontDoorAddr}},
		{"IAM session scope off Lambda", env(Table, "t", Mode, "frontdoor", Namespace, "n", FrontDoorQueueURL, q, FrontDoorScope, "iam-session", FrontDoorAddr, "127.0.0.1:8080"),
			[]string{FrontDoorScope + "=iam-session with", FrontDoorAddr}},
		{"a worker's setting", env(Table, "t", Mode, "frontdoor", Namespace, "n", FrontDoorQueueURL, q, Lease, "1m"), []string{Lease + " is set but " + Mode + " is frontdoor"}},
		{"scope in worker mode", env(Table, "t", FrontDoorScope, "none"), []string{FrontDoorScope, Mode}},
	} {
		_, err := Read(tc.env)
		wantErr(t, err, tc.want...)
	}
}

func TestReadDispatch(t *testing.T) {
	t.Parallel()
	with := func(kv ...string) func(string) string {
		return env(append([]string{Mode, "dispatch", DurableFunction, "summarise:prod"}, kv...)...)
	}
	s, err := Read(with(ConsumerQueueURL, "http://127.0.0.1:9324/000000000000/jobs", SQSEndpoint, "http://127.0.0.1:9324",
		Namespace, "summarise", KeyFields, "a,b", Concurrency, "4"))
	if err != nil || s.Program != Dispatch || s.Dispatch != (DispatchSettings{Function: "summarise:prod"}) || s.Request.Namespace != "summarise" ||
		!slices.Equal(s.Request.KeyFields, []string{"a", "b"}) || s.Concurrency != 4 || s.Store != (stores.Settings{}) {
		t.Errorf("dispatch %+v, %v", s, err)
	}
	for _, tt := range []struct {
		name string
		env  func(string) string
		want string
	}{
		{"unknown mode", env(Mode, "dispatcher"), Mode},
		{"no function", env(Mode, "dispatch"), DurableFunction + " is required"},
		{"a store", with(Table, "idempotency"), Table + " is set but " + Mode + " is dispatch: dispatch mode keeps no records"},
		{"a provider", with(ProviderURL, "http://127.0.0.1:1"), ProviderURL + " is set but " + Mode},
		{"a fingerprint", with(FingerprintFields, "a"), FingerprintFields + " is set but " + Mode},
		{"the retired name prefix", with(DurableNamePrefix, "summ-"), DurableNamePrefix + " is no longer read: each durable execution is named after the record key"},
		{"two key sources", with(KeyField, "id", KeyFields, "a,b"), KeyField},
		{"bad endpoint", with(LambdaEndpoint, "localhost"), LambdaEndpoint},
		{"SQS endpoint without a consumer", with(SQSEndpoint, "http://127.0.0.1:9324"), SQSEndpoint + " is set but " + ConsumerQueueURL},
		{"bad concurrency", with(Concurrency, "0"), Concurrency},
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
	s, err := ReadFor(Command, env(Table, "t", Namespace, "ns", KeyFields, "document_id,version", RecordExpiry, "100h", BlobBucket, "b",
		ProviderURL, "not read", Lease, "garbage", Mode, "frontdoor", frontDoorPath, "x", DurableNamePrefix, "retired"))
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
		{env(Store, "redis"), []string{"IDEMQ_STORE_URL (or --store-url) is required; want a redis:// or rediss:// URL"}},
		{env(Store, "Mongo"), []string{`IDEMQ_STORE (or --store)="Mongo": want dynamodb, postgres, redis or memory`}},
		{env(Store, "memory"), []string{"IDEMQ_STORE (or --store)=memory keeps records in the worker's process"}},
		{env(Store, "postgres", StoreURL, "mysql://u:s3cret@h/db"), []string{"IDEMQ_TABLE (or --table) is required with IDEMQ_STORE=postgres",
			`IDEMQ_STORE_URL (or --store-url)=mysql://u:xxxxx@h/db: the scheme is "mysql"`}},
		{env(Table, "t", StoreURL, "redis://h"), []string{"IDEMQ_STORE_URL (or --store-url) is set but IDEMQ_STORE is dynamodb"}},
		{env(Table, "t", RecordExpiry, "-1h"), []string{`IDEMQ_RECORD_EXPIRY (or --record-expiry)="-1h": must be positive`}},
		{env(Table, "t", KeyField, "id", KeyAttribute, "key"), []string{"IDEMQ_KEY_ATTRIBUTE (or --key-attribute)", "a key has one source"}},
		{env(Table, "t", KeyFields, "a,,b"), []string{"IDEMQ_KEY_FIELDS (or --key-fields)", "none empty"}},
	} {
		s, err := ReadFor(Command, c.env)
		err = errors.Join(err, CheckStore(Command, s.Store)) // as the command opens the store
		wantErr(t, err, c.want...)
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the password is shown: %v", err)
		}
	}
	// A command that opens no store (redrive) needs none named.
	if s, err := ReadFor(Command, env(SQSEndpoint, "http://127.0.0.1:9324")); err != nil || s.SQSEndpoint != "http://127.0.0.1:9324" {
		t.Errorf("no store: %+v, %v", s, err)
	}
	if _, err := ReadFor(Command, env(SQSEndpoint, "127.0.0.1:9324")); err == nil || !strings.Contains(err.Error(), SQSEndpoint+" (or --sqs-endpoint)") {
		t.Errorf("a bad SQS endpoint: %v; want it named with its flag", err)
	}
}

func TestMaxConcurrency(t *testing.T) {
	t.Parallel()
	// As aws-lambda-go v1.55.1 reads it (lambdacontext.MaxConcurrency):
	// anything but a whole number of at least 1 is 1.
	for v, want := range map[string]int{"": 1, "1": 1, "8": 8, "64": 64, "0": 1, "-3": 1, "eight": 1, "2.5": 1} {
		if s, err := Read(env(Store, "memory", MaxConcurrency, v)); err != nil || s.MaxConcurrency != want {
			t.Errorf("%s=%q: %d, %v; want %d", MaxConcurrency, v, s.MaxConcurrency, err, want)
		}
	}
}

// A value that may hold a secret is never shown but redacted.
func TestReadRedacts(t *testing.T) {
	t.Parallel()
	_, err := Read(env(Table, "t", ProviderURL, "ftp://u:s3cr3t@p.example/v1", DynamoDBEndpoint, "http://u:s3cr3t@h:8000:99",
		Store, "postgres", StoreURL, "host=h password=s3cr3t", ProviderAPIKey, "s3cr3t", ProviderAPIKeySecret, "x"))
	wantErr(t, err, ProviderURL+"=ftp://u:xxxxx@p.example/v1", DynamoDBEndpoint, StoreURL+" (value not shown", ProviderAPIKey, ProviderAPIKeySecret)
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
		{&idem.ConfigError{Package: "idem", Field: "Heartbeat", Value: "4s", Err: optkit.ErrNil}, Heartbeat + ": idem: Heartbeat"},
		{&idem.ConfigError{Package: "durable", Field: "Concurrency", Value: "0", Err: optkit.ErrNil}, Concurrency + ": durable"},
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
	if want := Lease + ": idem: Lease: is nil\nx\n" + Concurrency + ": handler: Concurrency: is nil"; err.Error() != want || !errors.Is(err, lease) || !errors.Is(err, plain) {
		t.Errorf("SettingError of joined refusals = %q; want %q, wrapping each", err, want)
	}
	if SettingError(plain) != plain {
		t.Error("SettingError changed an error that is no setting's")
	}
}
