package main

import (
	"strings"
	"testing"

	"github.com/idemq/idemq/idemqenv"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// settings reads the variables kv names as the worker does, failing the
// test on a bad one.
func settings(t *testing.T, kv ...string) idemqenv.Settings {
	t.Helper()
	s, err := loadConfig(env(kv...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The reference worker reads the environment as idemqenv does (its tests
// hold each variable), and requires its model provider in worker mode
// only: the front door and the dispatcher call none.
func TestLoadConfig(t *testing.T) {
	t.Parallel()
	s := settings(t, "IDEMQ_TABLE", "idem", "IDEMQ_PROVIDER_URL", "https://api.openai.com/v1", "IDEMQ_LEASE", "90s")
	if s.Provider.URL != "https://api.openai.com/v1" || s.Store.Table != "idem" || !s.Backoff || s.Lease.String() != "1m30s" {
		t.Errorf("settings %+v", s)
	}
	for _, c := range []struct {
		name string
		env  func(string) string
		want []string // each named in the error
	}{
		{"nothing set", env(), []string{"IDEMQ_TABLE", "IDEMQ_PROVIDER_URL is required"}},
		{"no provider, and a bad lease", env("IDEMQ_TABLE", "t", "IDEMQ_LEASE", "soon"), []string{"IDEMQ_PROVIDER_URL", "IDEMQ_LEASE"}},
		{"a bad provider URL", env("IDEMQ_TABLE", "t", "IDEMQ_PROVIDER_URL", "api.openai.com"), []string{"IDEMQ_PROVIDER_URL"}},
	} {
		_, err := loadConfig(c.env)
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
	}
	for _, vars := range [][]string{
		{"IDEMQ_MODE", "frontdoor", "IDEMQ_TABLE", "t", "IDEMQ_NAMESPACE", "n", "IDEMQ_FRONTDOOR_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/q"},
		{"IDEMQ_MODE", "dispatch", "IDEMQ_DURABLE_FUNCTION", "summarise:prod"},
	} {
		if _, err := loadConfig(env(vars...)); err != nil {
			t.Errorf("%q: %v; want no provider needed", vars, err)
		}
	}
}
