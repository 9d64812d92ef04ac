package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	c, err := loadConfig(env(
		envTable, "idem", envRecordExpiry, "120h19m0s", envProviderURL, "https://api.openai.com/v1",
		envBackoff, "true", envLease, "90s", envEndpoint, "http://127.0.0.1:8000", envConcurrency, "25", envHeartbeat, "30s",
	))
	if err != nil {
		t.Fatal(err)
	}
	want := config{store: "dynamodb", table: "idem", endpoint: "http://127.0.0.1:8000",
		expiry: 120*time.Hour + 19*time.Minute, lease: 90 * time.Second,
		backoff: true, providerURL: "https://api.openai.com/v1", concurrency: 25, heartbeat: 30 * time.Second}
	if c != want {
		t.Errorf("config\n got %+v\nwant %+v", c, want)
	}

	for v, want := range map[string]int{"": 0, "off": -1, "OFF": -1, "2048": 2048} {
		c, err := loadConfig(env(envStore, "memory", envProviderURL, "http://127.0.0.1:1", envCompress, v))
		if err != nil || c.compressAbove != want {
			t.Errorf("%s=%q: compressAbove %d, %v; want %d", envCompress, v, c.compressAbove, err, want)
		}
		if cfg, err := idem.NewConfig(idem.WithCompressAbove(c.compressAbove)); err != nil || (want == -1 && cfg.CompressAbove != -1) {
			t.Errorf("%s=off does not turn compression off: %+v", envCompress, cfg)
		}
	}
	for _, v := range []string{"0", "-5", "lots"} {
		if _, err := loadConfig(env(envStore, "memory", envProviderURL, "http://127.0.0.1:1", envCompress, v)); err == nil || !strings.Contains(err.Error(), envCompress) {
			t.Errorf("%s=%q: %v, want an error naming it", envCompress, v, err)
		}
	}

	c, err = loadConfig(env(envStore, "memory", envProviderURL, "http://127.0.0.1:1", envKeyField, "request.id", envBackoff, "false"))
	if err != nil || c.table != "" || c.keyField != "request.id" || c.backoff || c.expiry != 0 || c.concurrency != 0 {
		t.Errorf("memory config %+v, %v", c, err)
	}

	// Back-off is on by default: an in-progress message must not spend its
	// receives while a lease runs out.
	c, err = loadConfig(env(envTable, "idem", envProviderURL, "http://127.0.0.1:1"))
	if err != nil || !c.backoff {
		t.Errorf("memory config %+v, %v", c, err)
	}

	// The provider's key from a secret.
	c, err = loadConfig(env(envTable, "idem", envProviderURL, "https://api.openai.com/v1", envAPIKeySecret, "idemq/provider-key"))
	if err != nil || c.apiKeySecret != "idemq/provider-key" || c.apiKey != "" {
		t.Errorf("API key secret config %+v, %v", c, err)
	}

	// The other stores, by URL.
	c, err = loadConfig(env(envStore, "postgres", envStoreURL, "postgres://u@127.0.0.1:5432/db", envTable, "records", envProviderURL, "http://127.0.0.1:1"))
	if err != nil || c.store != "postgres" || c.storeURL != "postgres://u@127.0.0.1:5432/db" || c.table != "records" {
		t.Errorf("postgres config %+v, %v", c, err)
	}
	c, err = loadConfig(env(envStore, "redis", envStoreURL, "redis://127.0.0.1:6379/0", envProviderURL, "http://127.0.0.1:1"))
	if err != nil || c.store != "redis" || c.storeURL != "redis://127.0.0.1:6379/0" {
		t.Errorf("redis config %+v, %v", c, err)
	}

	// Offloading to a bucket: off unless a bucket is named; the prefix
	// and the size default.
	if c.blobBucket != "" || c.blobPrefix != "" || c.offloadAbove != 0 || c.s3Endpoint != "" {
		t.Errorf("blob settings without %s: %+v", envBlobBucket, c)
	}
	c, err = loadConfig(env(envTable, "idem", envProviderURL, "http://127.0.0.1:1", envBlobBucket, "results"))
	if err != nil || c.blobBucket != "results" || c.blobPrefix != defaultBlobPrefix || c.offloadAbove != 0 || c.s3Endpoint != "" {
		t.Errorf("bucket config %+v, %v", c, err)
	}
	if cfg, err := idem.NewConfig(idem.WithOffloadAbove(c.offloadAbove)); err != nil || cfg.OffloadAbove != idem.DefaultOffloadAbove {
		t.Errorf("%s unset: OffloadAbove %d, want idem's default %d", envOffloadAbove, cfg.OffloadAbove, idem.DefaultOffloadAbove)
	}
	c, err = loadConfig(env(envTable, "idem", envProviderURL, "http://127.0.0.1:1", envBlobBucket, "results",
		envBlobPrefix, "jobs/", envOffloadAbove, "4096", envS3Endpoint, "http://127.0.0.1:9000"))
	if err != nil || c.blobBucket != "results" || c.blobPrefix != "jobs/" || c.offloadAbove != 4096 || c.s3Endpoint != "http://127.0.0.1:9000" {
		t.Errorf("bucket config %+v, %v", c, err)
	}

	// The back-off against a local SQS server.
	c, err = loadConfig(env(envTable, "idem", envProviderURL, "http://127.0.0.1:1", envBackoff, "true",
		envSQSEndpoint, "http://127.0.0.1:9324", envQueueURL, "http://sqs.us-east-1.localhost:9324/000000000000/jobs.fifo"))
	if err != nil || !c.backoff || c.sqsEndpoint != "http://127.0.0.1:9324" || c.queueURL != "http://sqs.us-east-1.localhost:9324/000000000000/jobs.fifo" {
		t.Errorf("local back-off config %+v, %v", c, err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		env  func(string) string
		want []string // each named in the error
	}{
		{"nothing set", env(), []string{envTable, envProviderURL}},
		{"bad durations", env(envTable, "t", envProviderURL, "http://p", envRecordExpiry, "5 days", envLease, "-1s"),
			[]string{envRecordExpiry, envLease}},
		{"heartbeat not a duration", env(envTable, "t", envProviderURL, "http://p", envHeartbeat, "1"),
			[]string{envHeartbeat}},
		{"bad heartbeat", env(envTable, "t", envProviderURL, "http://p", envHeartbeat, "often"), []string{envHeartbeat}},
		{"bad concurrency", env(envTable, "t", envProviderURL, "http://p", envConcurrency, "0"), []string{envConcurrency}},
		{"concurrency not a number", env(envTable, "t", envProviderURL, "http://p", envConcurrency, "ten"), []string{envConcurrency}},
		{"bad bool", env(envTable, "t", envProviderURL, "http://p", envBackoff, "yes please"), []string{envBackoff}},
		{"bad URL", env(envTable, "t", envProviderURL, "api.openai.com"), []string{envProviderURL}},
		{"bad endpoint", env(envTable, "t", envProviderURL, "http://p", envEndpoint, "localhost:8000"), []string{envEndpoint}},
		{"bad store", env(envStore, "mongo", envProviderURL, "http://p"), []string{envStore}},
		{"postgres without URL or table", env(envStore, "postgres", envProviderURL, "http://p"), []string{envStoreURL, envTable}},
		{"redis with a postgres URL", env(envStore, "redis", envStoreURL, "postgres://x", envProviderURL, "http://p"), []string{envStoreURL}},
		{"store URL with dynamodb", env(envTable, "t", envStoreURL, "redis://x", envProviderURL, "http://p"), []string{envStoreURL}},
		{"bad SQS endpoint and queue URL", env(envTable, "t", envProviderURL, "http://p", envBackoff, "true",
			envSQSEndpoint, "127.0.0.1:9324", envQueueURL, "jobs"), []string{envSQSEndpoint, envQueueURL}},
		{"SQS endpoint and queue URL without back-off", env(envTable, "t", envProviderURL, "http://p", envBackoff, "false",
			envSQSEndpoint, "http://127.0.0.1:9324", envQueueURL, "http://127.0.0.1:9324/000000000000/jobs"),
			[]string{envSQSEndpoint, envQueueURL, envBackoff}},
		{"blob settings without a bucket", env(envTable, "t", envProviderURL, "http://p",
			envBlobPrefix, "r/", envOffloadAbove, "100", envS3Endpoint, "http://127.0.0.1:9000"),
			[]string{envBlobPrefix, envOffloadAbove, envS3Endpoint, envBlobBucket}},
		{"bad offload size", env(envTable, "t", envProviderURL, "http://p", envBlobBucket, "b", envOffloadAbove, "0"), []string{envOffloadAbove}},
		{"offload size not a number", env(envTable, "t", envProviderURL, "http://p", envBlobBucket, "b", envOffloadAbove, "8k"), []string{envOffloadAbove}},
		{"bad S3 endpoint", env(envTable, "t", envProviderURL, "http://p", envBlobBucket, "b", envS3Endpoint, "127.0.0.1:9000"), []string{envS3Endpoint}},
		{"bucket as a URL", env(envTable, "t", envProviderURL, "http://p", envBlobBucket, "s3://b/results"), []string{envBlobBucket}},
		{"API key and API key secret", env(envTable, "t", envProviderURL, "http://p",
			envAPIKey, "sk-plain", envAPIKeySecret, "idemq/provider-key"), []string{envAPIKey, envAPIKeySecret}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadConfig(c.env)
			if err == nil {
				t.Fatal("no error")
			}
			for _, name := range c.want {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("error %q does not name %s", err, name)
				}
			}
		})
	}
}

// The claim's settings the library does not check are checked at start-up:
// a heartbeat the library would cut, an expiry no queue can use, and, with
// the queue's settings (IDEMQ_QUEUE, as the CDK stack writes them), an
// expiry shorter than the message lifetime or a lease a crashed worker's
// message cannot be retried after.
func TestLoadConfigClaim(t *testing.T) {
	t.Parallel()
	// What the CDK stack writes for cdk.json's settings.
	const stackQueue = `{"retention":"96h0m0s","visibilityTimeout":"12m0s","maxReceives":5,"batchingWindow":"0s","deadLetterRetention":"336h0m0s","fifo":false}`
	// A queue no default expiry covers: 14 days + 1000 × 12 h.
	const endless = `{"retention":"336h","visibilityTimeout":"12h","maxReceives":1000}`
	base := []string{envTable, "t", envProviderURL, "http://p"}
	with := func(kv ...string) func(string) string { return env(append(slices.Clone(base), kv...)...) }

	c, err := loadConfig(with(envQueue, stackQueue, envRecordExpiry, "541h15m0s"))
	want := queue.Settings{Retention: 96 * time.Hour, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, DeadLetterRetention: 336 * time.Hour}
	if err != nil || c.queue != want {
		t.Errorf("the stack's IDEMQ_QUEUE: %+v, %v; want %+v", c.queue, err, want)
	}
	// The library's default expiry, whatever it is, covers a short queue.
	if c, err := loadConfig(with(envQueue, `{"retention":"1h","visibilityTimeout":"1m","maxReceives":3}`)); err != nil || c.expiry != 0 {
		t.Errorf("default expiry with a 1 h queue: %+v, %v", c, err)
	}
	// A heartbeat with a lease, a lease with back-off that the queue allows.
	if _, err := loadConfig(with(envQueue, stackQueue, envLease, "1h", envHeartbeat, "20m")); err != nil {
		t.Errorf("a 1 h lease with back-off on the stack's queue: %v", err)
	}

	for _, tt := range []struct {
		name string
		env  func(string) string
		want []string // each named in the error
	}{
		{"a heartbeat without a lease", with(envHeartbeat, "1h"), []string{envHeartbeat, envLease}},
		{"an expiry of a second", with(envRecordExpiry, "1s"), []string{envRecordExpiry, "1m0s"}},
		{"an expiry shorter than the message lifetime", with(envQueue, stackQueue, envRecordExpiry, "96h"),
			[]string{envRecordExpiry, envQueue, "message lifetime 97h0m0s"}},
		{"the default expiry for a queue it does not cover", with(envQueue, endless),
			[]string{envRecordExpiry, idem.DefaultExpiry.String(), envQueue}},
		{"a lease that spends every receive without back-off", with(envQueue, stackQueue, envBackoff, "false", envLease, "1h"),
			[]string{envLease, envQueue, "max receives 5"}},
		{"a lease whose retry comes after the queue drops the message", with(envQueue, `{"retention":"1h","visibilityTimeout":"5m","maxReceives":10}`, envLease, "56m"),
			[]string{envLease, envQueue, "retention 1h0m0s"}},
		{"settings that are not JSON", with(envQueue, "retention=96h"), []string{envQueue}},
		{"an unknown field", with(envQueue, `{"retention":"96h","visibilityTimeout":"30s","maxReceives":5,"receives":5}`), []string{envQueue, "receives"}},
		{"settings SQS refuses", with(envQueue, `{"retention":"10s","visibilityTimeout":"30s","maxReceives":5}`), []string{envQueue, "retention 10s"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadConfig(tt.env)
			if err == nil {
				t.Fatal("no error")
			}
			for _, name := range tt.want {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("error %q does not name %s", err, name)
				}
			}
		})
	}
}
