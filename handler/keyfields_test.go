package handler_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/request"
)

func bodyMsg(id, body string) events.SQSMessage {
	m := handlerbundle.Msg(id, "")
	m.Body = body
	return m
}

// A key of several fields names the request by what its values say: the
// same request spelled another way, or carrying another trace id, is a
// replay, never a payload mismatch; two different values are two keys.
func TestKeyFields(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(nil, withRequest(request.Identity{KeyFields: []string{"version", "document.id"}}))
	first := bodyMsg("m1", `{"document":{"id":4471},"version":9,"trace":"a"}`)
	handlerbundle.WantIDs(t, b.Invoke(h, first,
		bodyMsg("m2", `{"version":"9","document":{"id":4471.0},"trace":"b"}`), // the same request
		bodyMsg("m3", `{"document":{"id":9007199254740993},"version":9}`),
		bodyMsg("m4", `{"document":{"id":9007199254740992},"version":9}`),
		bodyMsg("m5", `{"document":{"id":4471}}`), // no version
	), "m5")
	if got := b.Replays()["m2"]; got != "result:m1" {
		t.Errorf("m2 replayed %q, want m1's result", got)
	}
	if b.CallCount("m3") != 1 || b.CallCount("m4") != 1 {
		t.Errorf("2^53+1 and 2^53 ran %d and %d times, want once each", b.CallCount("m3"), b.CallCount("m4"))
	}
	if err := b.Failure("m5"); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("m5: %v, want idem.ErrNoKey", err)
	}
	k, _ := idem.ClientKey(handlerbundle.Namespace, "document.id:4471:version:9")
	if rec, ok := idemtest.MustGet(t, b.store, k); !ok || rec.Status != idem.StatusCompleted {
		t.Errorf("no COMPLETED record under %s: %+v", k, rec)
	}

	// Checking named fields is opt-in: another prompt under one key is a
	// payload mismatch.
	b2 := setup(t)
	h2 := b2.wrap(nil, withRequest(request.Identity{KeyFields: []string{"document_id"}, FingerprintFields: []string{"prompt"}}))
	handlerbundle.WantIDs(t, b2.Invoke(h2,
		bodyMsg("m1", `{"document_id":1,"prompt":"summarise"}`),
		bodyMsg("m2", `{"document_id":1,"prompt":"translate"}`),
	), "m2")
	if err := b2.Failure("m2"); !errors.Is(err, idem.ErrPayloadMismatch) {
		t.Errorf("m2: %v, want idem.ErrPayloadMismatch", err)
	}
}

func TestKeyFieldsWiring(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		fields []string
		pkg    string
	}{"empty": {[]string{""}, "request"}, "stray escape": {[]string{`a\`}, "request"}} {
		_, err := handler.New(newStore(), func(context.Context, events.SQSMessage) ([]byte, error) { return nil, nil },
			handler.WithRequest(request.Identity{Namespace: handlerbundle.Namespace, KeyFields: tc.fields}))
		if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Package != tc.pkg || bad.Field != "KeyFields" {
			t.Errorf("%s: err %v, want an *idem.ConfigError naming %s's KeyFields", name, err, tc.pkg)
		}
	}
}
