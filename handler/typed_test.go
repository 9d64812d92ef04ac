package handler_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

type (
	summariseReq struct {
		DocumentID string `json:"document_id" idemq:"key"`
		Version    int    `json:"version" idemq:"key"`
		Prompt     string `json:"prompt"`
	}
	summary struct {
		Text  string `json:"text"`
		Words int    `json:"words"`
	}
)

// typedRun is a typed handler's test: its store, what its function and
// hooks saw.
type typedRun struct {
	*handlerbundle.Bundle
	store    *memstore.Store
	mu       sync.Mutex
	requests []summariseReq
	replays  map[string]summary
	failures map[string]error
}

func newTypedRun(t *testing.T) *typedRun {
	return &typedRun{Bundle: handlerbundle.New(t), store: must(memstore.New()), replays: map[string]summary{}, failures: map[string]error{}}
}

func (r *typedRun) summarise(_ context.Context, req summariseReq) (summary, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req)
	return summary{Text: "about " + req.DocumentID, Words: len(req.Prompt)}, nil
}

// options are the run's hooks and logger, and opts.
func (r *typedRun) options(opts ...handler.Option) []handler.Option {
	return append([]handler.Option{
		handler.WithRequest(request.Identity{Namespace: "summarise"}),
		handler.WithLogger(r.Logger()),
		handler.WithTypedReplayHook(func(_ context.Context, msg events.SQSMessage, s summary) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.replays[msg.MessageId] = s
			return nil
		}),
		handler.WithFailureHook(func(_ context.Context, msg events.SQSMessage, err error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.failures[msg.MessageId] = err
		}),
	}, opts...)
}

func typedMsg(id, body string) events.SQSMessage {
	return events.SQSMessage{MessageId: id, Body: body, EventSourceARN: handlerbundle.StandardARN}
}

// The body is decoded into the request type, the key is the one its tags
// make, the result is stored as JSON and a duplicate's replay hook gets
// it decoded.
func TestTypedDecodesStoresReplays(t *testing.T) {
	t.Parallel()
	r := newTypedRun(t)
	h := must(handler.NewTyped(r.store, r.summarise, r.options()...))
	body := `{"document_id":"doc-1","version":9,"prompt":"in brief","trace_id":"t-1"}`
	if failed := r.Invoke(h, typedMsg("m1", body), typedMsg("m2", `{"version":9,"document_id":"doc-1","prompt":"in brief"}`)); len(failed) != 0 {
		t.Fatalf("failed %v: %v", failed, r.failures)
	}
	if want := []summariseReq{{DocumentID: "doc-1", Version: 9, Prompt: "in brief"}}; !slices.Equal(r.requests, want) {
		t.Errorf("the function saw %+v, want %+v", r.requests, want)
	}
	rec, ok, err := r.store.Get(context.Background(), "summarise#document_id:doc-1:version:9")
	if err != nil || !ok || string(rec.Result) != `{"text":"about doc-1","words":8}` {
		t.Fatalf("the record: %+v %v %v", rec, ok, err)
	}
	if got := r.replays["m2"]; got != (summary{Text: "about doc-1", Words: 8}) {
		t.Errorf("the replay hook got %+v", got)
	}
	// A later delivery replays from the store, decoded.
	if failed := r.Invoke(h, typedMsg("m3", body)); len(failed) != 0 || r.replays["m3"] != (summary{Text: "about doc-1", Words: 8}) {
		t.Errorf("a redelivery: failed %v, replayed %+v", failed, r.replays["m3"])
	}
	if len(r.requests) != 1 {
		t.Errorf("ran %d times, want 1", len(r.requests))
	}
}

// A body that does not decode into the type fails its record as a bad
// body, at OpKey, without a claim and without running the function; one
// whose key member another member decodes over is a bad key, refused by
// the key's reader. A body that does not decode fails even when its key
// was completed before: what becomes of it does not depend on which
// delivery came first.
func TestTypedBadBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		done       bool // the key was completed by an earlier delivery
		want       error
		decode     bool // a request.DecodeError, from the type; else refused by the key's reader
	}{
		{"a member of another type", `{"document_id":"doc-1","version":"nine"}`, false, request.ErrBadBody, true},
		{"a number the type's int does not take, its key done", `{"document_id":"doc-1","version":9.0}`, true, request.ErrBadBody, true},
		{"the key member named alike", `{"document_id":"doc-1","version":9,"Document_ID":"doc-2"}`, false, idem.ErrBadKey, false},
	} {
		r := newTypedRun(t)
		store := &countingStore{Store: r.store}
		h := must(handler.NewTyped(store, r.summarise, r.options()...))
		claims := 0
		if tc.done {
			if failed := r.Invoke(h, typedMsg("first", `{"document_id":"doc-1","version":9}`)); len(failed) != 0 {
				t.Fatalf("%s: the first delivery failed: %v", tc.name, failed)
			}
			claims = 1
		}
		// A good record beside it: the batch is not all failures.
		failed := r.Invoke(h, typedMsg("m1", tc.body), typedMsg("ok", `{"document_id":"doc-9","version":1}`))
		if !slices.Equal(failed, []string{"m1"}) || r.requests[len(r.requests)-1].DocumentID != "doc-9" {
			t.Errorf("%s: failed %v, ran %+v", tc.name, failed, r.requests)
		}
		if got := store.claimCount(); got != claims+1 {
			t.Errorf("%s: %d claims, want %d: the bad body's record claimed its key", tc.name, got, claims+1)
		}
		err := r.failures["m1"]
		if re, ok := errors.AsType[*handler.RecordError](err); !ok || re.Op != handler.OpKey || !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want a RecordError at OpKey wrapping %v", tc.name, err, tc.want)
		}
		if _, ok := errors.AsType[*request.DecodeError](err); ok != tc.decode {
			t.Errorf("%s: %v: a request.DecodeError %v, want %v", tc.name, err, ok, tc.decode)
		}
		if _, ok := r.replays["m1"]; ok {
			t.Errorf("%s: the bad body's record was replayed", tc.name)
		}
	}
}

// panicky is a request whose decoding panics.
type panicky struct {
	ID string `json:"id" idemq:"key"`
}

func (p *panicky) UnmarshalJSON([]byte) error { panic("decoder") }

// A decoder that panics fails its record with ErrPanic, without a claim;
// the other records of the batch run.
func TestTypedDecodePanics(t *testing.T) {
	t.Parallel()
	r := newTypedRun(t)
	store := &countingStore{Store: r.store}
	type holder struct {
		ID    string   `json:"id" idemq:"key"`
		Inner *panicky `json:"inner"`
	}
	ran := 0
	h := must(handler.NewTyped(store, func(context.Context, holder) (string, error) { ran++; return "ok", nil },
		handler.WithRequest(request.Identity{Namespace: "panicky"}), handler.WithLogger(r.Logger()), handler.WithFailureHook(func(_ context.Context, msg events.SQSMessage, err error) {
			r.failures[msg.MessageId] = err
		})))
	failed := r.Invoke(h, typedMsg("m1", `{"id":"a","inner":{"id":"x"}}`), typedMsg("ok", `{"id":"b"}`))
	if !slices.Equal(failed, []string{"m1"}) || ran != 1 || store.claimCount() != 1 {
		t.Errorf("failed %v, ran %d, claims %d; want m1 failed, one run, one claim", failed, ran, store.claimCount())
	}
	if err := r.failures["m1"]; !errors.Is(err, handler.ErrPanic) {
		t.Errorf("%v, want ErrPanic", err)
	}
}

// The options join the type's tags: they say the namespace and add what
// the tags leave unset; one that contradicts a tag is refused.
func TestTypedOptionsJoinTags(t *testing.T) {
	t.Parallel()
	r := newTypedRun(t)
	fn := func(_ context.Context, req struct {
		Prompt string `json:"prompt"`
	}) (string, error) {
		return req.Prompt, nil
	}
	// A type without key fields: the key from an attribute.
	h := must(handler.NewTyped(r.store, fn, handler.WithRequest(request.Identity{Namespace: "ns", KeyAttribute: "key"}), handler.WithLogger(r.Logger())))
	k := "k-1"
	msg := typedMsg("m1", `{"prompt":"p"}`)
	msg.MessageAttributes = map[string]events.SQSMessageAttribute{"key": {DataType: "String", StringValue: &k}}
	if failed := r.Invoke(h, msg); len(failed) != 0 {
		t.Fatalf("failed %v", failed)
	}
	if rec, ok, _ := r.store.Get(context.Background(), "ns#k-1"); !ok || string(rec.Result) != `"p"` {
		t.Errorf("the record: %+v %v", rec, ok)
	}
	// The same key fields, in another order, agree with the tags.
	if _, err := handler.NewTyped(r.store, r.summarise, handler.WithRequest(request.Identity{Namespace: "ns", KeyFields: []string{"version", "document_id"}})); err != nil {
		t.Errorf("the tags' own key fields: %v", err)
	}
	typ := must(request.NewType[summariseReq](request.Identity{Namespace: "ns"}))
	if _, err := handler.NewTyped(r.store, r.summarise, handler.WithRequest(typ.Identity())); err != nil {
		t.Errorf("the type's Identity: %v", err)
	}
	for _, tc := range []struct {
		name  string
		opts  []handler.Option
		field string
	}{
		{"another key field", []handler.Option{handler.WithRequest(request.Identity{Namespace: "ns", KeyField: "prompt"})}, "KeyField"},
		{"a key attribute", []handler.Option{handler.WithRequest(request.Identity{Namespace: "ns", KeyAttribute: "key"})}, "KeyAttribute"},
		{"a replay hook of another type", []handler.Option{handler.WithTypedReplayHook(func(context.Context, events.SQSMessage, string) error { return nil })}, "OnReplay"},
		{"a typed replay hook with no result stored", r.options(handler.WithIdem(func(c *idem.Config) { c.DiscardResult = true })), "OnReplay"},
		{"a handler setting", []handler.Option{handler.WithConcurrency(-1)}, "Concurrency"},
	} {
		_, err := handler.NewTyped(r.store, r.summarise, append([]handler.Option{handler.WithRequest(request.Identity{Namespace: "ns"})}, tc.opts...)...)
		if bad, ok := errors.AsType[*idem.ConfigError](err); !ok || bad.Field != tc.field {
			t.Errorf("%s: %v, want a ConfigError for %s", tc.name, err, tc.field)
		}
	}
	// An untyped hook given after a typed one is the one used: no type to
	// check.
	if _, err := handler.NewTyped(r.store, r.summarise, handler.WithRequest(request.Identity{Namespace: "ns"}),
		handler.WithTypedReplayHook(func(context.Context, events.SQSMessage, string) error { return nil }),
		handler.WithReplayHook(func(context.Context, events.SQSMessage, []byte) error { return nil })); err != nil {
		t.Errorf("an untyped hook last: %v", err)
	}
}

// A stored result the typed hook cannot decode fails the record, and the
// message comes back.
func TestTypedReplayUnreadable(t *testing.T) {
	t.Parallel()
	r := newTypedRun(t)
	// Another function of the namespace stored a string for the key.
	untyped := must(handler.New(r.store, func(context.Context, events.SQSMessage) ([]byte, error) { return []byte(`"text"`), nil },
		handler.WithRequest(request.Identity{Namespace: "summarise", KeyFields: []string{"document_id", "version"}}), handler.WithLogger(r.Logger())))
	body := `{"document_id":"doc-1","version":9}`
	if failed := r.Invoke(untyped, typedMsg("m1", body)); len(failed) != 0 {
		t.Fatal(failed)
	}
	h := must(handler.NewTyped(r.store, r.summarise, r.options()...))
	if failed := r.Invoke(h, typedMsg("m2", body), typedMsg("ok", `{"document_id":"doc-9","version":1}`)); !slices.Equal(failed, []string{"m2"}) {
		t.Fatalf("failed %v", failed)
	}
	if err := r.failures["m2"]; !errors.Is(err, handler.ErrReplayHook) || !errors.Is(err, idem.ErrUnreadableResult) {
		t.Errorf("%v, want ErrReplayHook and idem.ErrUnreadableResult", err)
	}
}

// A result that does not encode as JSON fails the record and frees the
// key.
func TestTypedResultNotJSON(t *testing.T) {
	t.Parallel()
	r := newTypedRun(t)
	h := must(handler.NewTyped(r.store, func(_ context.Context, req summariseReq) (any, error) {
		if req.DocumentID == "doc-1" {
			return func() {}, nil
		}
		return "text", nil
	}, handler.WithRequest(request.Identity{Namespace: "summarise"}), handler.WithLogger(r.Logger())))
	failed := r.Invoke(h, typedMsg("m1", `{"document_id":"doc-1","version":9}`), typedMsg("ok", `{"document_id":"doc-9","version":1}`))
	if !slices.Equal(failed, []string{"m1"}) {
		t.Fatalf("failed %v", failed)
	}
	if _, ok, _ := r.store.Get(context.Background(), "summarise#document_id:doc-1:version:9"); ok {
		t.Error("the claim was kept")
	}
}
