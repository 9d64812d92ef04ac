package idemqenv_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idemqenv"
)

// IDEMQ_CONSUMER_VISIBILITY is read as its doc says, whole seconds as a
// bare number, and as a Go duration too.
func TestVisibilitySeconds(t *testing.T) {
	t.Parallel()
	read := func(v string) (time.Duration, error) {
		s, err := idemqenv.Read(func(name string) string {
			return map[string]string{
				"IDEMQ_TABLE": "records", "IDEMQ_CONSUMER_QUEUE_URL": "https://sqs.eu-west-1.amazonaws.com/123456789012/jobs",
				"IDEMQ_CONSUMER_VISIBILITY": v,
			}[name]
		})
		return s.Consumer.Visibility, err
	}
	for v, want := range map[string]time.Duration{"60": time.Minute, "2": 2 * time.Second, "90s": 90 * time.Second, "1m": time.Minute} {
		if got, err := read(v); err != nil || got != want {
			t.Errorf("IDEMQ_CONSUMER_VISIBILITY=%s: %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"0", "-5", "1.5", "ten", "60 s"} {
		if got, err := read(v); err == nil || !strings.Contains(err.Error(), "IDEMQ_CONSUMER_VISIBILITY") {
			t.Errorf("IDEMQ_CONSUMER_VISIBILITY=%s: %v, %v; want an error naming it", v, got, err)
		}
	}
}

// Every duration variable's doc says how it is written: a Go duration
// (IDEMQ_CONSUMER_VISIBILITY, whole seconds, says both).
func TestDurationDocs(t *testing.T) {
	t.Parallel()
	n := 0
	for _, v := range idemqenv.Vars() {
		if v.Kind() != "duration" {
			continue
		}
		n++
		if !strings.Contains(v.Doc, "Go duration") {
			t.Errorf("%s is parsed as a Go duration; its doc does not say so: %q", v.Name, v.Doc)
		}
	}
	if n < 7 {
		t.Errorf("%d duration variables; want the 7 there are at least", n)
	}
}
