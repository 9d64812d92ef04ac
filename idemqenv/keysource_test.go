//go:build idemq_keysource

package idemqenv

import (
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/request"
)

// The second key source of a build with the tag idemq_keysource (make
// keysource) is a row of request's table alone (request/fields_keysource.go):
// this package reads it, writes it back, checks it against the other key
// sources, refuses a bad value under its name and documents it, with no
// change to its own code.
func TestSecondKeySource(t *testing.T) {
	const name = "IDEMQ_KEY_DEDUPLICATION_ID"
	v, ok := Lookup(name)
	if !ok || v.Flag != "key-deduplication-id" || !v.Programs.Has(Worker|FrontDoor|Dispatch|Command) || !strings.Contains(v.Doc, "deduplication id") {
		t.Fatalf("Lookup(%s) = %+v, %v; want the table's row, read by every keyed program and the command", name, v, ok)
	}
	if !strings.Contains(docsTable(), "| `"+name+"` | worker, frontdoor, dispatch, command (`--key-deduplication-id`) |") {
		t.Errorf("the docs' table has no row for %s", name)
	}

	s, err := Read(env("IDEMQ_TABLE", "t", "IDEMQ_NAMESPACE", "orders", name, "true", "IDEMQ_BACKOFF", "false"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := request.NewReader(s.Request)
	if err != nil {
		t.Fatal(err)
	}
	id, err := r.ReadKey(events.SQSMessage{Body: `{"idempotency_key":"not this"}`, Attributes: map[string]string{"MessageDeduplicationId": "d-1"}})
	if err != nil || id.Key != "orders#d-1" {
		t.Errorf("the worker's reader: %+v, %v; want the key orders#d-1 from the deduplication id", id, err)
	}
	if got := s.Environ()[name]; got != "true" {
		t.Errorf("Environ: %s=%q, want true", name, got)
	}

	for _, tc := range []struct {
		env  func(string) string
		want string
	}{
		{env("IDEMQ_TABLE", "t", "IDEMQ_NAMESPACE", "orders", name, "yes"), name + `="yes": want true or false`},
		{env("IDEMQ_TABLE", "t", "IDEMQ_NAMESPACE", "orders", name, "true", "IDEMQ_KEY_FIELD", "id"), name + ": request: KeyFunc"},
	} {
		if _, err := Read(tc.env); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read: %v; want an error saying %q", err, tc.want)
		}
	}
}
