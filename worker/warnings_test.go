package worker

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Settings that work but may cost a second execution are logged as
// warnings at start-up: a namespace left to the function's name, an expiry
// that covers the queue but not a redrive from its dead-letter queue,
// records kept in memory.
func TestStartupWarnings(t *testing.T) {
	t.Parallel()
	q := queue.Settings{Retention: 96 * time.Hour, VisibilityTimeout: 12 * time.Minute, MaxReceives: 5, DeadLetterRetention: 336 * time.Hour}
	ns := request.Identity{Namespace: "w"}
	for _, tt := range []struct {
		name string
		s    idemqenv.Settings
		want []string // in the log, one warning each
	}{
		{"all set", idemqenv.Settings{Request: ns, Queue: q, RecordExpiry: 541 * time.Hour}, nil},
		{"no queue", idemqenv.Settings{Request: ns, RecordExpiry: 97 * time.Hour}, nil},
		{"no namespace", idemqenv.Settings{Queue: q, RecordExpiry: 541 * time.Hour}, []string{"IDEMQ_NAMESPACE is unset"}},
		{"an expiry short of a redrive", idemqenv.Settings{Request: ns, Queue: q, RecordExpiry: 200 * time.Hour}, []string{"does not cover a redrive"}},
		{"the memory store", idemqenv.Settings{Request: ns, Store: stores.Settings{Kind: stores.Memory}}, []string{"kept in memory"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			warnings(tt.s, slog.New(slog.NewTextHandler(&out, nil)))
			if n := strings.Count(out.String(), "level=WARN"); n != len(tt.want) {
				t.Errorf("%d warnings, want %d:\n%s", n, len(tt.want), out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("no warning %q in\n%s", w, out.String())
				}
			}
		})
	}
}
