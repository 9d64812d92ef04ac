package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// readKey is the record key a handler given id claims for a message with
// body (and scope, "" for none): what the worker writes.
func readKey(t *testing.T, id request.Identity, body, scope string) idem.Key {
	t.Helper()
	r, err := request.NewReader(id)
	if err != nil {
		t.Fatal(err)
	}
	msg := events.SQSMessage{Body: body}
	if scope != "" {
		msg.MessageAttributes = map[string]events.SQSMessageAttribute{request.ScopeAttribute: {DataType: "String", StringValue: &scope}}
	}
	got, err := r.Read(msg)
	if err != nil {
		t.Fatal(err)
	}
	return got.Key
}

// inspected is the key a run of inspect --json found.
func inspected(t *testing.T, r result) string {
	t.Helper()
	var v view
	if r.code != exitOK {
		return ""
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("inspect --json: %v", err)
	}
	return v.Key
}

// A worker keyed by two body fields: its record is found by a body read
// with the worker's key fields (IDEMQ_KEY_FIELDS), or by the value as the
// handler writes it, and released by either.
func TestInspectNaturalKey(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		id := request.Identity{Namespace: namespace, KeyFields: []string{"document_id", "version"}}
		stored := readKey(t, id, `{"document_id":"doc-1","version":1,"prompt":"p"}`, "")
		b.claimKey(t, stored, b.now, time.Hour)
		b.env["IDEMQ_KEY_FIELDS"] = "document_id,version"

		for _, args := range [][]string{
			{"inspect", "--body", `{"document_id":"doc-1","version":1}`},
			{"inspect", "--body", `{"version":"1","document_id":"doc-1","prompt":"another spelling"}`},
			{"inspect", "document_id:doc-1:version:1"},
		} {
			if got := inspected(t, b.run(t, nil, append(args, "--json")...)); got != string(stored) {
				t.Errorf("%s: found %q, want the handler's record %q", strings.Join(args, " "), got, stored)
			}
		}
		for _, args := range [][]string{
			{"inspect", "--body", `{"document_id":"doc-1","version":2}`}, // another request
			{"inspect", "doc-1"},
		} {
			if r := b.run(t, nil, args...); r.code != exitFailed || !strings.Contains(r.stderr, "no record") {
				t.Errorf("%s: exit %d, want %d: no record", strings.Join(args, " "), r.code, exitFailed)
			}
		}
		for _, args := range [][]string{
			{"inspect", "--body", `{"document_id":"doc-1"}`},                      // short of a field
			{"inspect", "--body", `{"document_id":"doc-1","version":1}`, "doc-1"}, // two ways at once
			{"inspect", "--body", `not json`},
		} {
			if r := b.run(t, nil, args...); r.code != exitUsage {
				t.Errorf("%s: exit %d, want %d", strings.Join(args, " "), r.code, exitUsage)
			}
		}

		if r := b.run(t, nil, "release", "--force", "--yes", "--body", `{"document_id":"doc-1","version":1}`); r.code != exitOK {
			t.Fatalf("release --body: exit %d", r.code)
		}
		if _, ok, _ := b.store.Get(t.Context(), stored); ok {
			t.Errorf("release --body left the record")
		}
	})
}

// A front door caller's request: its scoped record is found with --scope
// (by key or body), or raw, and not by the key alone.
func TestInspectScopedKey(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		stored := readKey(t, request.Identity{Namespace: namespace}, `{"idempotency_key":"doc-7","prompt":"p"}`, "acme")
		b.claimKey(t, stored, b.now, time.Hour)
		if stored != "summarise:acme#doc-7" {
			t.Fatalf("the handler's scoped key is %q", stored)
		}
		for _, args := range [][]string{
			{"inspect", "doc-7", "--scope", "acme"},
			{"inspect", "--scope", "acme", "--body", `{"idempotency_key":"doc-7"}`},
			{"inspect", "--raw", "summarise:acme#doc-7"},
		} {
			if got := inspected(t, b.run(t, nil, append(args, "--json")...)); got != string(stored) {
				t.Errorf("%s: found %q, want %q", strings.Join(args, " "), got, stored)
			}
		}
		for _, args := range [][]string{{"inspect", "doc-7"}, {"inspect", "doc-7", "--scope", "other"}} {
			if r := b.run(t, nil, args...); r.code != exitFailed {
				t.Errorf("%s: exit %d, want %d (no record)", strings.Join(args, " "), r.code, exitFailed)
			}
		}
		if r := b.run(t, nil, "purge", "doc-7", "--scope", "acme", "--force", "--yes"); r.code != exitOK {
			t.Fatalf("purge --scope: exit %d", r.code)
		}
		if _, ok, _ := b.store.Get(t.Context(), stored); ok {
			t.Errorf("purge --scope left the record")
		}
	})
}

// The command works on its namespace's records only: --raw refuses a key
// of another namespace when one is set.
func TestRawKeyOfAnotherNamespace(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		other := must(idem.ClientKey("other", "doc-1"))
		b.claimKey(t, other, b.now.Add(-10*time.Minute), time.Minute)
		for _, args := range [][]string{{"inspect", "--raw", string(other)}, {"purge", "--raw", string(other), "--yes"}} {
			if r := b.run(t, nil, args...); r.code != exitUsage || !strings.Contains(r.stderr, "not in namespace") {
				t.Errorf("%s in namespace %s: exit %d, want %d saying so", strings.Join(args, " "), namespace, r.code, exitUsage)
			}
		}
		if _, ok, _ := b.store.Get(t.Context(), other); !ok {
			t.Fatalf("another namespace's record is gone")
		}
		delete(b.env, "IDEMQ_NAMESPACE")
		if got := inspected(t, b.run(t, nil, "inspect", "--raw", string(other), "--json")); got != string(other) {
			t.Errorf("inspect --raw without a namespace: found %q", got)
		}
	})
}

// list and stuck show the namespace's records only, scoped keys included,
// and say so; --all shows every namespace's and says so; without a
// namespace they ask for one or --all.
func TestListNamespace(t *testing.T) {
	eachStore(t, func(t *testing.T, b *bundle) {
		mine := []idem.Key{key("a"), must(idem.ScopedKey(namespace, "acme", "b")), must(idem.ClientKey(namespace, "document_id:doc-1:version:1"))}
		others := []idem.Key{must(idem.ClientKey("other", "c")), must(idem.ClientKey(namespace+"2", "d")), must(idem.ScopedKey("other", namespace, "e"))}
		for _, k := range append(slices.Clone(mine), others...) {
			b.claimKey(t, k, b.now.Add(-10*time.Minute), time.Minute) // every lease passed, the records live 50 min more (Redis expires a key at its expiry)
		}
		keys := func(r result) []idem.Key {
			t.Helper()
			if r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var got []idem.Key
			for line := range strings.Lines(r.stdout) {
				var v struct{ Key string }
				if err := json.Unmarshal([]byte(line), &v); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				got = append(got, idem.Key(v.Key))
			}
			slices.Sort(got)
			return slices.Compact(got)
		}
		sorted := func(k ...idem.Key) []idem.Key { slices.Sort(k); return k }
		for _, c := range []struct {
			args []string
			want []idem.Key
			says string
		}{
			{[]string{"list"}, sorted(mine...), "namespace summarise (scoped keys included)"},
			{[]string{"stuck"}, sorted(mine...), "namespace summarise (scoped keys included)"},
			{[]string{"list", "--all"}, sorted(append(slices.Clone(mine), others...)...), "every namespace (--all)"},
			{[]string{"stuck", "--all"}, sorted(append(slices.Clone(mine), others...)...), "every namespace (--all)"},
			{[]string{"list", "--namespace", "other"}, sorted(others[0], others[2]), "namespace other"},
		} {
			r := b.run(t, nil, append(c.args, "--json")...)
			if got := keys(r); !slices.Equal(got, c.want) {
				t.Errorf("%s: keys %q, want %q", strings.Join(c.args, " "), got, c.want)
			}
			if !strings.Contains(r.stderr, c.says) {
				t.Errorf("%s --json does not say %q on stderr", strings.Join(c.args, " "), c.says)
			}
			if r := b.run(t, nil, c.args...); !strings.Contains(r.stdout, c.says) {
				t.Errorf("%s does not say %q", strings.Join(c.args, " "), c.says)
			}
		}
		delete(b.env, "IDEMQ_NAMESPACE")
		for _, cmd := range []string{"list", "stuck"} {
			if r := b.run(t, nil, cmd); r.code != exitUsage || !strings.Contains(r.stderr, "--all") {
				t.Errorf("%s without a namespace: exit %d, want %d naming --all", cmd, r.code, exitUsage)
			}
		}
	})
}
