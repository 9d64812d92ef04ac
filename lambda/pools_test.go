package main

import (
	"testing"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"

	"github.com/idemq/idemq/internal/storeenv"
)

func TestMaxConcurrency(t *testing.T) {
	t.Parallel()
	// As aws-lambda-go v1.55.1 reads it (lambdacontext.MaxConcurrency):
	// anything but a whole number of at least 1 is 1.
	for v, want := range map[string]int{"": 1, "1": 1, "8": 8, "64": 64, "0": 1, "-3": 1, "eight": 1, "2.5": 1} {
		if got := maxConcurrency(env(envMaxConcurrency, v)); got != want {
			t.Errorf("%s=%q: %d, want %d", envMaxConcurrency, v, got, want)
		}
	}
}

func TestConnectionsPerInvocationsAndRecords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vars []string
		want int
	}{
		{nil, 100},                              // one invocation × handler.DefaultConcurrency
		{[]string{envConcurrency, "25"}, 25},    // one invocation × 25 records
		{[]string{envMaxConcurrency, "8"}, 800}, // 8 invocations × the default 100
		{[]string{envMaxConcurrency, "8", envConcurrency, "25"}, 200},
		{[]string{envMaxConcurrency, "junk", envConcurrency, "25"}, 25}, // aws-lambda-go runs one
		// Consumer mode: its batches at once (consumer.DefaultMaxBatches,
		// 4) × the records of a receive (at most 10); Lambda's setting
		// does not apply.
		{[]string{envConsumerQueueURL, "http://127.0.0.1:1/q"}, 40},
		{[]string{envConsumerQueueURL, "http://127.0.0.1:1/q", envConsumerBatches, "6", envConcurrency, "5"}, 30},
		{[]string{envConsumerQueueURL, "http://127.0.0.1:1/q", envMaxConcurrency, "8"}, 40},
	} {
		c, err := loadConfig(env(append([]string{envStore, "memory", envProviderURL, "http://127.0.0.1:1"}, tc.vars...)...))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.connections(); got != tc.want {
			t.Errorf("%q: %d connections, want %d", tc.vars, got, tc.want)
		}
	}
}

func TestPostgresPoolSize(t *testing.T) {
	t.Parallel()
	pc, err := storeenv.PostgresPoolConfig("postgres://idemq@127.0.0.1:5432/idemq", 200)
	if err != nil {
		t.Fatal(err)
	}
	if pc.MaxConns != 200 {
		t.Errorf("pool of %d connections, want 200 (invocations × records)", pc.MaxConns)
	}
	// The operator's bound stands: PostgreSQL's max_connections is shared.
	if pc, err = storeenv.PostgresPoolConfig("postgres://idemq@127.0.0.1:5432/idemq?pool_max_conns=20", 200); err != nil || pc.MaxConns != 20 {
		t.Errorf("pool_max_conns=20: %v, %v; want 20", pc.MaxConns, err)
	}
}

func TestKeepConnectionsInAll(t *testing.T) {
	t.Parallel()
	// The SDK's transport keeps 100 idle connections in all by default: 8
	// invocations of 100 records need 800.
	tr := keepConnections(awshttp.NewBuildableClient(), 800).(*awshttp.BuildableClient).GetTransport()
	if tr.MaxIdleConnsPerHost != 800 || tr.MaxIdleConns != 800 {
		t.Errorf("idle connections: %d per host, %d in all; want 800 and 800", tr.MaxIdleConnsPerHost, tr.MaxIdleConns)
	}
}
