package producer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/producer"
	"github.com/idemq/idemq/request"
)

type (
	job struct {
		DocumentID string `json:"document_id" idemq:"key"`
		Version    int    `json:"version" idemq:"key"`
		Prompt     string `json:"prompt" idemq:"fingerprint"`
		Extra      any    `json:"extra,omitempty"`
	}
	keyed struct {
		ID string `json:"idempotency_key"` // the default key field, untagged
	}
	untagged struct {
		Prompt string `json:"prompt"`
	}
)

func typedProducer(t *testing.T, f *fakeSQS) *producer.Typed[job] {
	t.Helper()
	typ := must(request.NewType[job](request.Identity{Namespace: "ns"}))
	return must(producer.NewTyped[job](must(producer.New(f, queueURL, producer.WithRequest(typ.Identity())))))
}

func TestTypedSend(t *testing.T) {
	t.Parallel()
	f := &fakeSQS{}
	send := typedProducer(t, f)
	s, err := send.Send(context.Background(), job{DocumentID: "doc-1", Version: 9, Prompt: "p"})
	if err != nil || s.Key != "document_id:doc-1:version:9" || s.RecordKey != "ns#document_id:doc-1:version:9" || s.MessageID == "" {
		t.Fatalf("%+v %v", s, err)
	}
	if got := f.taken(); len(got) != 1 || got[0] != `{"document_id":"doc-1","version":9,"prompt":"p"}` {
		t.Errorf("sent %q", got)
	}
	// A request without its key is refused before sending.
	if _, err := send.Send(context.Background(), job{Version: 9}); !errors.Is(err, idem.ErrNoKey) {
		t.Errorf("no document id: %v, want idem.ErrNoKey", err)
	}
	if n := len(f.taken()); n != 1 {
		t.Errorf("%d messages sent, want 1", n)
	}
}

// Of a batch, a request that does not encode fails alone, under its own
// index.
func TestTypedSendBatch(t *testing.T) {
	t.Parallel()
	f := &fakeSQS{}
	send := typedProducer(t, f)
	sent, err := send.SendBatch(context.Background(), []job{
		{DocumentID: "a", Version: 1},
		{DocumentID: "b", Version: 1, Extra: make(chan int)},
		{DocumentID: "c", Version: 1},
		{Version: 1},
	})
	if len(sent) != 4 || sent[0].Err != nil || sent[2].Err != nil || sent[0].Key != "document_id:a:version:1" || sent[2].Key != "document_id:c:version:1" {
		t.Fatalf("%+v", sent)
	}
	for _, i := range []int{1, 3} {
		me, ok := errors.AsType[*producer.MessageError](sent[i].Err)
		if !ok || me.Index != i {
			t.Errorf("message %d: %v, want a MessageError at index %d", i, sent[i].Err, i)
		}
	}
	if !errors.Is(sent[1].Err, producer.ErrBadMessage) || !errors.Is(sent[3].Err, idem.ErrNoKey) || err == nil {
		t.Errorf("%v; %v; %v", sent[1].Err, sent[3].Err, err)
	}
	if n := len(f.taken()); n != 2 {
		t.Errorf("%d messages sent, want 2", n)
	}
}

// The producer must read requests as the type says.
func TestNewTypedRefuses(t *testing.T) {
	t.Parallel()
	f := &fakeSQS{}
	if _, err := producer.NewTyped[job](nil); err == nil {
		t.Error("a nil producer")
	}
	for _, tc := range []struct {
		name string
		opts []producer.Option
		new  func(*producer.Producer) error
	}{
		{"the default Identity for a type with key fields", nil, newTyped[job]},
		{"another key field", []producer.Option{producer.WithRequest(request.Identity{KeyField: "prompt"})}, newTyped[job]},
		{"no fingerprint check, where the type checks its prompt", []producer.Option{producer.WithRequest(request.Identity{KeyFields: []string{"document_id", "version"}, NoFingerprint: true})}, newTyped[job]},
		{"a type without its key", nil, newTyped[untagged]},
		{"a key attribute", []producer.Option{producer.WithRequest(request.Identity{KeyAttribute: "k"})}, newTyped[untagged]},
	} {
		err := tc.new(must(producer.New(f, queueURL, tc.opts...)))
		if _, ok := errors.AsType[*idem.ConfigError](err); !ok {
			t.Errorf("%s: %v, want a ConfigError", tc.name, err)
		}
	}
	// The default key field, untagged, is a key the type carries.
	if err := newTyped[keyed](must(producer.New(f, queueURL))); err != nil {
		t.Errorf("the default key field: %v", err)
	}
	// The type's key fields named by hand, in another order.
	if err := newTyped[job](must(producer.New(f, queueURL, producer.WithRequest(request.Identity{KeyFields: []string{"version", "document_id"}, FingerprintFields: []string{"prompt"}})))); err != nil {
		t.Errorf("the same Identity by hand: %v", err)
	}
}

func newTyped[Req any](p *producer.Producer) error {
	_, err := producer.NewTyped[Req](p)
	return err
}
