package main

import (
	"strings"
	"testing"
)

// The settings come from the worker's variables, a flag overriding its
// variable; the help never shows a variable's value (the store URL holds
// the store's password).
func TestSettings(t *testing.T) {
	t.Parallel()
	env := map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_NAMESPACE": "ns"}
	b := &bundle{env: env}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"inspect", "k"}, exitUsage, "IDEMQ_STORE (or --store)=memory keeps records in the worker's process"},
		{[]string{"inspect", "k", "--store", "mysql"}, exitUsage, `IDEMQ_STORE (or --store)="mysql": want dynamodb, postgres, redis or memory`},
		{[]string{"inspect", "--store", "dynamodb", "k"}, exitUsage, "IDEMQ_TABLE (or --table) is required"},
		{[]string{"inspect", "k", "--store", "dynamodb", "--namespace", ""}, exitUsage, "IDEMQ_NAMESPACE (or --namespace) is required"},
		{[]string{"inspect", "k", "--store", "dynamodb", "--store-url", "redis://user:s3cret@host:6379"}, exitUsage,
			"IDEMQ_STORE_URL (or --store-url) is set but IDEMQ_STORE is dynamodb"},
		{[]string{"inspect", "k", "--store", "redis", "--store-url", "rediss://user:s3cret@host:6379/0?dial_timeout=s3cret"}, exitUsage,
			"IDEMQ_STORE_URL=rediss://user:xxxxx@host:6379/0?dial_timeout=xxxxx"},
		{[]string{"inspect", "--store", "dynamodb", "--table", "t"}, exitUsage, "want one KEY, or --body and no KEY; got 0 argument(s)"},
		{[]string{"inspect", "a", "b", "--store", "dynamodb", "--table", "t"}, exitUsage, "got 2 argument(s)"},
		{[]string{"list", "--record-expiry", "-1h"}, exitUsage, `IDEMQ_RECORD_EXPIRY (or --record-expiry)="-1h": must be positive`},
		{[]string{"inspect", "k", "--key-field", "id", "--key-fields", "a,b"}, exitUsage, "IDEMQ_KEY_FIELDS (or --key-fields)"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"release", "-h"}, exitUsage, "--force"},
		{[]string{"help"}, exitOK, "redrive"},
	} {
		r := b.run(t, nil, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.says) {
			t.Errorf("idemq %s: exit %d, stderr %q; want exit %d saying %q", strings.Join(c.args, " "), r.code, r.stderr, c.code, c.says)
		}
		if strings.Contains(r.stdout+r.stderr, "s3cret") {
			t.Errorf("idemq %s shows the store URL's password", strings.Join(c.args, " "))
		}
	}
	env["IDEMQ_RECORD_EXPIRY"] = "forever"
	if r := b.run(t, nil, "list"); r.code != exitUsage || !strings.Contains(r.stderr, "IDEMQ_RECORD_EXPIRY") {
		t.Errorf("a bad IDEMQ_RECORD_EXPIRY: exit %d, %q", r.code, r.stderr)
	}
}
