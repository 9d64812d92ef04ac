package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A table that does not exist is one line naming the setting, on DynamoDB
// (no SDK exception, no checksum warning from DynamoDB Local's answer)
// and on PostgreSQL.
func TestFirstRunMissingTable(t *testing.T) {
	t.Parallel()
	for _, s := range stores {
		if s.name == "redis" { // a prefix, not a table: nothing is missing
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			store, env := s.setup(t)
			env["IDEMQ_NAMESPACE"] = namespace
			missing := env["IDEMQ_TABLE"] + "_missing"
			env["IDEMQ_TABLE"] = missing
			b := &bundle{store: store, env: env}
			r := b.run(t, nil, "inspect", "request-1")
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != exitFailed || len(lines) != 1 || !strings.Contains(r.stderr, `has no table "`+missing+`"`) || !strings.Contains(r.stderr, "set IDEMQ_TABLE (or --table)") {
				t.Errorf("exit %d, stderr %q; want exit %d and one line naming the table and IDEMQ_TABLE", r.code, r.stderr, exitFailed)
			}
			for _, raw := range []string{"ResourceNotFoundException", "checksum", "SQLSTATE", "relation"} {
				if strings.Contains(r.stderr, raw) {
					t.Errorf("stderr has %q: %q", raw, r.stderr)
				}
			}
		})
	}
}

// No region and no credentials are each one line naming what to set,
// before any request. The SDK reads the process's environment and files
// too, so the test clears them (and runs alone: t.Setenv).
func TestFirstRunAWSSettings(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_WEB_IDENTITY_TOKEN_FILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	base := map[string]string{
		"IDEMQ_TABLE": "idempotency", "IDEMQ_NAMESPACE": namespace,
		"IDEMQ_DYNAMODB_ENDPOINT": "http://127.0.0.1:1", // never asked: the command stops before
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"no region", map[string]string{"AWS_ACCESS_KEY_ID": "idemqlocal", "AWS_SECRET_ACCESS_KEY": "idemqlocal"}, []string{"no AWS region: set AWS_REGION"}},
		{"no credentials", map[string]string{"AWS_REGION": "eu-west-1"}, []string{"no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range base {
				env[k] = v
			}
			for k, v := range tc.env {
				env[k] = v
			}
			r := (&bundle{env: env}).run(t, nil, "inspect", "request-1")
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if r.code != exitUsage || len(lines) != 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line", r.code, r.stderr, exitUsage)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q lacks %q", r.stderr, w)
				}
			}
			if strings.Contains(r.stderr, "connection refused") || strings.Contains(r.stderr, "Missing Region") {
				t.Errorf("stderr %q: a request was sent, or the SDK's words", r.stderr)
			}
		})
	}
}
