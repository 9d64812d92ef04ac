//go:build idemq_keysource

package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// The second key source of a build with the tag idemq_keysource (make
// keysource), a row of request's table alone, is the command's too: a
// flag with its variable in the help, read from the flag or the
// variable, and the key an operator types is the record key the worker's
// handler claims (namespace#value), with no change to the command.
func TestSecondKeySource(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"the flag":     {[]string{"--namespace", "orders", "--key-deduplication-id", "true", "d-1"}, nil},
		"the variable": {[]string{"d-1"}, map[string]string{"IDEMQ_NAMESPACE": "orders", "IDEMQ_KEY_DEDUPLICATION_ID": "true"}},
	} {
		e := &env{stderr: io.Discard, getenv: func(k string) string { return tc.env[k] }}
		fs := flag.NewFlagSet("idemq inspect", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		e.register(fs)
		e.registerKey(fs)
		f := fs.Lookup("key-deduplication-id")
		if f == nil || !strings.Contains(f.Usage, "deduplication id") || !strings.Contains(f.Usage, "env IDEMQ_KEY_DEDUPLICATION_ID") {
			t.Fatalf("%s: the flag --key-deduplication-id: %+v", name, f)
		}
		pos, ok := e.parse(fs, tc.args, 1)
		if !ok {
			t.Fatalf("%s: %v refused", name, tc.args)
		}
		if e.read.Request.KeyFunc == nil {
			t.Errorf("%s: the Identity read has no key func: %+v", name, e.read.Request)
		}
		key, err := e.recordKey(pos)
		if err != nil || key != "orders#d-1" {
			t.Errorf("%s: the record key %q, %v; want orders#d-1", name, key, err)
		}
	}
}
