package durable_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/idemq/idemq/durable"
)

// nameRule is Lambda's DurableExecutionName: 1 to 64 of [a-zA-Z0-9-_].
var nameRule = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestExecutionName(t *testing.T) {
	t.Parallel()
	long64 := strings.Repeat("a", 64)
	cases := []struct {
		key, want string
	}{
		// Valid names pass as they are.
		{"order-1", "order-1"},
		{"A_b-9", "A_b-9"},
		{long64, long64},
		{"0", "0"},
		// Anything else: up to 23 readable characters, '-', 40 hex digits.
		{"doc:4471", "doc_4471-" + "HASH"},
		{"a b", "a_b-HASH"},
		{"été", "__t__-HASH"},
		{long64 + "a", strings.Repeat("a", 23) + "-HASH"},
		{"ns#json(model,prompt):sha256:0123", "ns_json_model_prompt__s-HASH"},
	}
	for _, tc := range cases {
		got := durable.ExecutionName(tc.key)
		if !nameRule.MatchString(got) {
			t.Errorf("ExecutionName(%q) = %q: not a name Lambda takes", tc.key, got)
		}
		if got != durable.ExecutionName(tc.key) {
			t.Errorf("ExecutionName(%q) differs between calls", tc.key)
		}
		if readable, ok := strings.CutSuffix(tc.want, "HASH"); ok {
			hash, found := strings.CutPrefix(got, readable)
			if !found || !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(hash) {
				t.Errorf("ExecutionName(%q) = %q, want %s and 40 hex digits", tc.key, got, readable)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("ExecutionName(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
}

// Keys that differ get names that differ, those sanitized alike included.
func TestExecutionNameSeparatesKeys(t *testing.T) {
	t.Parallel()
	keys := []string{"a:b", "a.b", "a b", "a_b", "a-b", "a#b", "a:b ", strings.Repeat("x", 64) + "1", strings.Repeat("x", 64) + "2", "é", "è"}
	seen := map[string]string{}
	for _, k := range keys {
		n := durable.ExecutionName(k)
		if other, ok := seen[n]; ok {
			t.Errorf("keys %q and %q share the name %q", other, k, n)
		}
		seen[n] = k
	}
}
