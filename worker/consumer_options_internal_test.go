package worker

import (
	"testing"
	"time"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/optkit"
)

// settingsOf reads kv as the worker's environment.
func settingsOf(t *testing.T, kv ...string) idemqenv.Settings {
	t.Helper()
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	s, err := idemqenv.Read(func(name string) string { return m[name] })
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The consumer's settings read from IDEMQ_CONSUMER_* reach consumer.Config,
// each to its own field.
func TestConsumerOptions(t *testing.T) {
	t.Parallel()
	s := settingsOf(t, "IDEMQ_TABLE", "records", "IDEMQ_CONSUMER_QUEUE_URL", "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs",
		"IDEMQ_CONSUMER_MAX_RUN_TIME", "3m", "IDEMQ_CONSUMER_MAX_BATCHES", "7", "IDEMQ_CONSUMER_GRACE_PERIOD", "9s", "IDEMQ_CONSUMER_VISIBILITY", "4m")
	w := &Worker{Settings: s}
	got, err := optkit.ApplyOptions("consumer", w.consumerOptions())
	want := consumer.Config{MaxRunTime: 3 * time.Minute, MaxBatches: 7, GracePeriod: 9 * time.Second, VisibilityTimeout: 4 * time.Minute}
	if err != nil || got != want {
		t.Errorf("the options set %+v (%v), want %+v", got, err, want)
	}
}

// Each pool keeps a connection for each request that can be under way:
// the batches at once times the records of each.
func TestConnections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vars []string
		want int
	}{
		{nil, 100}, // one invocation × handler.DefaultConcurrency
		{[]string{"IDEMQ_CONCURRENCY", "25"}, 25},          // one invocation × 25 records
		{[]string{"AWS_LAMBDA_MAX_CONCURRENCY", "8"}, 800}, // 8 invocations × the default 100
		{[]string{"AWS_LAMBDA_MAX_CONCURRENCY", "8", "IDEMQ_CONCURRENCY", "25"}, 200},
		{[]string{"AWS_LAMBDA_MAX_CONCURRENCY", "junk", "IDEMQ_CONCURRENCY", "25"}, 25}, // aws-lambda-go runs one
		// Consumer mode: its batches at once (consumer.DefaultMaxBatches,
		// 4) × the records of a receive (at most 10); Lambda's setting
		// does not apply.
		{[]string{"IDEMQ_CONSUMER_QUEUE_URL", "http://127.0.0.1:1/q"}, 40},
		{[]string{"IDEMQ_CONSUMER_QUEUE_URL", "http://127.0.0.1:1/q", "IDEMQ_CONSUMER_MAX_BATCHES", "6", "IDEMQ_CONCURRENCY", "5"}, 30},
		{[]string{"IDEMQ_CONSUMER_QUEUE_URL", "http://127.0.0.1:1/q", "AWS_LAMBDA_MAX_CONCURRENCY", "8"}, 40},
		// The dispatcher: durable.DefaultConcurrency records of a batch.
		{[]string{"IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "f:prod"}, 10},
		{[]string{"IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "f:prod", "AWS_LAMBDA_MAX_CONCURRENCY", "3"}, 30},
	} {
		vars := tc.vars
		if len(vars) < 2 || vars[0] != "IDEMQ_MODE" {
			vars = append([]string{"IDEMQ_STORE", "memory"}, vars...)
		}
		if got := connections(settingsOf(t, vars...)); got != tc.want {
			t.Errorf("%q: %d connections, want %d", tc.vars, got, tc.want)
		}
	}
}
