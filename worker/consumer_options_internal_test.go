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
	s := settingsOf(t, idemqenv.Table, "records", idemqenv.ConsumerQueueURL, "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs",
		idemqenv.ConsumerMaxRunTime, "3m", idemqenv.ConsumerMaxBatches, "7", idemqenv.ConsumerGracePeriod, "9s", idemqenv.ConsumerVisibility, "4m")
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
		{[]string{idemqenv.Concurrency, "25"}, 25},    // one invocation × 25 records
		{[]string{idemqenv.MaxConcurrency, "8"}, 800}, // 8 invocations × the default 100
		{[]string{idemqenv.MaxConcurrency, "8", idemqenv.Concurrency, "25"}, 200},
		{[]string{idemqenv.MaxConcurrency, "junk", idemqenv.Concurrency, "25"}, 25}, // aws-lambda-go runs one
		// Consumer mode: its batches at once (consumer.DefaultMaxBatches,
		// 4) × the records of a receive (at most 10); Lambda's setting
		// does not apply.
		{[]string{idemqenv.ConsumerQueueURL, "http://127.0.0.1:1/q"}, 40},
		{[]string{idemqenv.ConsumerQueueURL, "http://127.0.0.1:1/q", idemqenv.ConsumerMaxBatches, "6", idemqenv.Concurrency, "5"}, 30},
		{[]string{idemqenv.ConsumerQueueURL, "http://127.0.0.1:1/q", idemqenv.MaxConcurrency, "8"}, 40},
		// The dispatcher: durable.DefaultConcurrency records of a batch.
		{[]string{idemqenv.Mode, "dispatch", idemqenv.DurableFunction, "f:prod"}, 10},
		{[]string{idemqenv.Mode, "dispatch", idemqenv.DurableFunction, "f:prod", idemqenv.MaxConcurrency, "3"}, 30},
	} {
		vars := tc.vars
		if len(vars) < 2 || vars[0] != idemqenv.Mode {
			vars = append([]string{idemqenv.Store, "memory"}, vars...)
		}
		if got := connections(settingsOf(t, vars...)); got != tc.want {
			t.Errorf("%q: %d connections, want %d", tc.vars, got, tc.want)
		}
	}
}
