package worker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
	"github.com/idemq/idemq/worker"
)

// A request's identity given in code and the environment's are joined:
// each field from the one that sets it. A field both set otherwise is
// refused at start, naming the variable and both values, never silently
// overridden.
func TestIdentityInCodeAndEnvironment(t *testing.T) {
	t.Parallel()
	inCode := func(id request.Identity) worker.Option { return worker.WithHandlerOptions(handler.WithRequest(id)) }
	for _, tc := range []struct {
		name string
		env  map[string]string
		id   request.Identity
		want []string // the error's; none: it starts, and body keys as key
		key  idem.Key
		body string
	}{
		{name: "another namespace", env: map[string]string{"IDEMQ_NAMESPACE": "b"}, id: request.Identity{Namespace: "a"},
			want: []string{"IDEMQ_NAMESPACE" + `: request: Namespace "b": contradicts "a"`, "given in code"}},
		{name: "another key source", env: map[string]string{"IDEMQ_NAMESPACE": "n", "IDEMQ_KEY_FIELD": "k"}, id: request.Identity{KeyFields: []string{"a", "b"}},
			want: []string{"IDEMQ_KEY_FIELD" + `: request: KeyField "k": contradicts`, "given in code"}},
		{name: "alike in both", env: map[string]string{"IDEMQ_NAMESPACE": "a", "IDEMQ_KEY_FIELD": "id"}, id: request.Identity{Namespace: "a", KeyField: "id"},
			key: "a#x", body: `{"id":"x"}`},
		{name: "each field in one place", env: map[string]string{"IDEMQ_NAMESPACE": "n"}, id: request.Identity{KeyField: "id"},
			key: "n#x", body: `{"id":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"IDEMQ_STORE": "memory", "IDEMQ_BACKOFF": "false"}
			for k, v := range tc.env {
				env[k] = v
			}
			var c counter
			w, err := worker.FromEnv(context.Background(), lookup(env), c.fn, quiet, inCode(tc.id))
			if len(tc.want) > 0 {
				if err == nil {
					w.Close()
					t.Fatalf("no error; want one saying %q", tc.want)
				}
				for _, want := range tc.want {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error\n%v\ndoes not say %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if resp, err := w.Handler(context.Background(), batch(tc.body)); err != nil || len(resp.BatchItemFailures) != 0 {
				t.Fatalf("batch: %+v, %v", resp, err)
			}
			if rec, ok, err := w.Store.Get(context.Background(), tc.key); err != nil || !ok || rec.Status != idem.StatusCompleted {
				t.Errorf("record %s: %+v, %v, %v; want it completed", tc.key, rec, ok, err)
			}
		})
	}
}
