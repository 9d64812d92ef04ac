package handler_test

import (
	"errors"
	"testing"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/request"
)

// A key field that is not Unicode text (a lone surrogate escape) fails
// its record, even with WithKeyless: read as U+FFFD it would share a key
// with every other such string.
func TestKeyFieldLoneSurrogate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(nil, handler.WithKeyless(), withRequest(request.Identity{FingerprintFields: []string{"prompt"}}))
	m1, m2 := handlerbundle.Msg("m1", ""), handlerbundle.Msg("m2", "")
	m1.Body = `{"idempotency_key":"a\ud800","prompt":"p"}`
	m2.Body = `{"idempotency_key":"a\udc00","prompt":"p"}`
	handlerbundle.WantIDs(t, b.Invoke(h, m1, m2, handlerbundle.Msg("m3", "k3")), "m1", "m2")
	for _, id := range []string{"m1", "m2"} {
		if err := b.Failure(id); !errors.Is(err, idem.ErrBadKey) || err.Op != "key" {
			t.Errorf("%s failure = %v, want ErrBadKey", id, err)
		}
		if b.CallCount(id) != 0 {
			t.Errorf("%s ran", id)
		}
	}
}

// A member named "request.id" does not stand in for the path request.id:
// a body cannot take another request's key by adding one.
func TestKeyFieldPathIsNotSteered(t *testing.T) {
	t.Parallel()
	b := setup(t)
	h := b.wrap(nil, withRequest(request.Identity{KeyField: "request.id", FingerprintFields: []string{"prompt"}}), handler.WithKeyless())
	first := handlerbundle.Msg("m1", "")
	first.Body = `{"request":{"id":"r-1"},"prompt":"p"}`
	other := handlerbundle.Msg("m2", "")
	other.Body = `{"request":{"id":"r-2"},"request.id":"r-1","prompt":"p"}`
	handlerbundle.WantIDs(t, b.Invoke(h, first))
	handlerbundle.WantIDs(t, b.Invoke(h, other))
	if _, ok := b.Replayed("m2"); ok || b.CallCount("m2") != 1 {
		t.Errorf("request r-2 was answered with r-1's result")
	}
	if _, ok := idemtest.MustGet(t, b.store, key("r-2")); !ok {
		t.Errorf("no record for r-2")
	}
	// A member with the dotted name alone is not the key: with the path
	// absent the record fails (naming the escape), rather than running
	// keyless on a key the function does not read.
	literal := handlerbundle.Msg("m3", "")
	literal.Body = `{"request.id":"r-3","prompt":"p"}`
	handlerbundle.WantIDs(t, b.Invoke(h, literal), "m3")
	if err := b.Failure("m3"); !errors.Is(err, idem.ErrBadKey) {
		t.Errorf("m3 failure = %v, want ErrBadKey", err)
	}
	// Escaped, the dot is part of the name.
	handlerbundle.WantIDs(t, b.Invoke(b.wrap(nil, withRequest(request.Identity{KeyField: `request\.id`})), literal))
	if _, ok := idemtest.MustGet(t, b.store, key("r-3")); !ok {
		t.Errorf(`no record for r-3 through the field request\.id`)
	}
}

// Bodies that differ only in a number a float64 cannot tell apart are two
// payloads, for the whole-body fingerprint and a fields fingerprint alike.
func TestFingerprintNumbersAreExact(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]handler.Option{
		"whole body": nil,
		"fields":     {withRequest(request.Identity{FingerprintFields: []string{"id"}})},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			h := b.wrap(nil, opts...)
			m1, m2 := handlerbundle.Msg("m1", ""), handlerbundle.Msg("m2", "")
			m1.Body = `{"idempotency_key":"k1","id":9007199254740993}`
			m2.Body = `{"idempotency_key":"k1","id":9007199254740992}`
			handlerbundle.WantIDs(t, b.Invoke(h, m1))
			handlerbundle.WantIDs(t, b.Invoke(h, m2), "m2")
			if err := b.Failure("m2"); !errors.Is(err, idem.ErrPayloadMismatch) {
				t.Errorf("m2 failure = %v, want ErrPayloadMismatch", err)
			}
		})
	}
}
