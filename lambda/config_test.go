package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// startErr starts the worker on getenv's variables, its AWS clients
// pointed at a port nothing listens on, and returns its error.
func startErr(getenv func(string) string) error {
	p, err := start(context.Background(), getenv, slog.New(slog.DiscardHandler), fakeAWS("http://127.0.0.1:1")...)
	if err == nil {
		p.worker.Close()
	}
	return err
}

// One start names every bad setting: those idemqenv.Read finds, those
// the parts it configures refuse (worker.FromEnv), and the reference
// worker's own, its model provider, required in worker mode only (the
// front door and the dispatcher call none).
func TestStartNamesEveryBadSetting(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		env  func(string) string
		want []string // each named in the error
	}{
		{"nothing set", env(), []string{"IDEMQ_TABLE", "IDEMQ_PROVIDER_URL is required"}},
		{"no provider, and a bad lease", env("IDEMQ_TABLE", "t", "IDEMQ_LEASE", "soon"), []string{"IDEMQ_PROVIDER_URL", "IDEMQ_LEASE"}},
		{"a bad provider URL", env("IDEMQ_TABLE", "t", "IDEMQ_PROVIDER_URL", "api.openai.com"), []string{"IDEMQ_PROVIDER_URL"}},
		{"a bad variable, a setting the claim refuses, no provider", env("IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "n", "IDEMQ_CONCURRENCY", "lots",
			"IDEMQ_LEASE", "4s", "IDEMQ_HEARTBEAT", "4s"), []string{"IDEMQ_CONCURRENCY", "IDEMQ_HEARTBEAT: idem: Heartbeat 4s", "IDEMQ_PROVIDER_URL is required"}},
		{"off Lambda without a namespace, with a bad variable", env("IDEMQ_STORE", "memory", "IDEMQ_PROVIDER_URL", "http://p", "IDEMQ_LEASE", "soon"),
			[]string{"IDEMQ_LEASE", "IDEMQ_NAMESPACE is required outside Lambda"}},
		{"the front door's refusal with a bad variable", env("IDEMQ_MODE", "frontdoor", "IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "n",
			"IDEMQ_FRONTDOOR_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/q", "IDEMQ_FRONTDOOR_PATH", "jobs", "IDEMQ_LEASE", "soon"),
			[]string{"IDEMQ_LEASE", "IDEMQ_FRONTDOOR_PATH"}},
	} {
		err := startErr(c.env)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %s", c.name, err, w)
			}
		}
		if n := strings.Count(err.Error(), "IDEMQ_PROVIDER_URL"); n > 1 {
			t.Errorf("%s: IDEMQ_PROVIDER_URL named %d times: %v", c.name, n, err)
		}
		if n := strings.Count(err.Error(), "bad configuration"); n != 1 {
			t.Errorf("%s: \"bad configuration\" %d times, want once: %v", c.name, n, err)
		}
	}
	for _, vars := range [][]string{
		{"IDEMQ_MODE", "frontdoor", "IDEMQ_STORE", "memory", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/q"},
		{"IDEMQ_MODE", "dispatch", "IDEMQ_NAMESPACE", "n", "IDEMQ_DURABLE_FUNCTION", "summarise:prod"},
	} {
		if err := startErr(env(vars...)); err != nil {
			t.Errorf("%q: %v; want no provider needed", vars, err)
		}
	}
}
