package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// The store URL holds the store's password: whatever the form of the
// value, and whichever check refuses it (the worker's, pgx's, go-redis's),
// the start-up error names the variable and never holds the password,
// and nothing is logged with it.
func TestStoreURLPasswordNeverPrinted(t *testing.T) {
	t.Parallel()
	const pw = "s3cr3t-pw"
	for _, c := range []struct {
		name, store, url string
		shown            string // the redacted value the error shows, if any
	}{
		{"key=value DSN", "postgres", "host=127.0.0.1 user=u password=" + pw + " dbname=db", ""},
		{"quoted key=value DSN", "postgres", "host=127.0.0.1 password='" + pw + "'", ""},
		{"upper-case scheme", "postgres", "POSTGRES://u:" + pw + "@127.0.0.1/db", "POSTGRES://u:xxxxx@127.0.0.1/db"},
		{"another scheme", "postgres", "mysql://u:" + pw + "@127.0.0.1/db", "mysql://u:xxxxx@127.0.0.1/db"},
		{"unescaped # in the password", "postgres", "postgres://u:" + pw + "#1@127.0.0.1/db", ""},
		{"unescaped / in the password", "postgres", "postgres://u:12/" + pw + "@127.0.0.1/db", ""},
		{"password in the query", "postgres", "postgres://u@127.0.0.1:1/db?password=" + pw + "&connect_timeout=soon", "postgres://u@127.0.0.1:1/db?password=xxxxx&connect_timeout=xxxxx"},
		{"pgx refuses a setting", "postgres", "postgres://u:" + pw + "@127.0.0.1:1/db?sslmode=" + pw, "postgres://u:xxxxx@127.0.0.1:1/db?sslmode=xxxxx"},
		{"redis, upper-case scheme", "redis", "REDIS://:" + pw + "@127.0.0.1:6379/0", "REDIS://:xxxxx@127.0.0.1:6379/0"},
		{"redis, unescaped ? in the password", "redis", "redis://:" + pw + "?1@127.0.0.1:6379/0", ""},
		{"redis with a postgres URL", "redis", "postgres://u:" + pw + "@127.0.0.1/db", "postgres://u:xxxxx@127.0.0.1/db"},
		{"go-redis refuses an option", "redis", "rediss://u:" + pw + "@127.0.0.1:6379/0?dial_timeout=" + pw, "rediss://u:xxxxx@127.0.0.1:6379/0?dial_timeout=xxxxx"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			_, err := startup(context.Background(), env(
				"IDEMQ_STORE", c.store, "IDEMQ_STORE_URL", c.url, "IDEMQ_TABLE", "records", "IDEMQ_PROVIDER_URL", "http://127.0.0.1:1",
				"IDEMQ_NAMESPACE", "w", "IDEMQ_BACKOFF", "false",
			), slog.New(slog.NewJSONHandler(&logs, nil)))
			if err == nil {
				t.Fatal("start-up succeeded")
			}
			msg := err.Error()
			if strings.Contains(msg, "s3cr3t") || strings.Contains(logs.String(), "s3cr3t") {
				t.Errorf("the password is printed:\nerror: %s\nlogs: %s", msg, logs.String())
			}
			if !strings.Contains(msg, "IDEMQ_STORE_URL") {
				t.Errorf("error %q does not name IDEMQ_STORE_URL", msg)
			}
			if c.shown != "" && !strings.Contains(msg, "IDEMQ_STORE_URL="+c.shown) {
				t.Errorf("error %q does not show IDEMQ_STORE_URL=%s", msg, c.shown)
			}
		})
	}
}

// Other URL variables show their value with any password hidden too.
func TestURLVariablesRedacted(t *testing.T) {
	t.Parallel()
	err := startErr(env("IDEMQ_TABLE", "t", "IDEMQ_PROVIDER_URL", "ftp://u:s3cr3t@p.example/v1", "IDEMQ_DYNAMODB_ENDPOINT", "http://u:s3cr3t@h:8000:99"))
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); strings.Contains(msg, "s3cr3t") || !strings.Contains(msg, "IDEMQ_PROVIDER_URL=ftp://u:xxxxx@p.example/v1") || !strings.Contains(msg, "IDEMQ_DYNAMODB_ENDPOINT") {
		t.Errorf("error %q: want both variables named, the provider URL redacted, no password", msg)
	}
}
