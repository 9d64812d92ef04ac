package handler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// TypedReplayFunc receives the stored result of a record that was not
// executed because its key had been done before, decoded from its JSON
// form into the typed function's result type (see WithTypedReplayHook).
type TypedReplayFunc[Resp any] func(ctx context.Context, msg events.SQSMessage, result Resp) error

// NewTyped is New for a function of a request type: each record's body
// is decoded into a Req (request.Type.Decode: encoding/json, unknown
// members ignored) and fn's result is stored as JSON (encoding/json) and
// handed to a replay hook decoded (WithTypedReplayHook):
//
//	type Summarise struct {
//		DocumentID string `json:"document_id" idemq:"key"`
//		Version    int    `json:"version" idemq:"key"`
//		Prompt     string `json:"prompt"`
//	}
//
//	h, err := handler.NewTyped(store, func(ctx context.Context, req Summarise) (Summary, error) { ... })
//
// Who a request is comes from Req's tags (request.IdentityOf) merged with
// the options (request.Identity.Merge): the options say the namespace,
// and may add what the tags leave unset (WithKeyAttribute or WithKeyFunc
// for a type without key fields, WithFingerprintFields,
// WithoutFingerprint); an option that sets what a tag says, otherwise
// than the tag, is refused. Pass the same Identity to the producer and
// the other parts (the Type's, request.NewType), or Req itself
// (producer.NewTyped).
//
// A body that does not decode into a Req fails its record with an error
// that is ErrBadBody (a *request.DecodeError) without running fn; so
// does a body in which a member the key or the fingerprint is made of
// decodes otherwise into Req's field (a member named alike in another
// case, which encoding/json also matches), so that fn never sees another
// request than its key names. The record's claim is released, as for any
// error of fn, and the message comes back until it reaches the
// dead-letter queue. A result that does not encode as JSON fails the
// record the same way, after fn ran.
//
// NewTyped returns New's errors, and an *idem.ConfigError for a bad tag
// of Req, an option that contradicts one, or a typed replay hook of
// another result type than Resp or with idem.WithoutResult.
func NewTyped[Req, Resp any](store idem.Store, fn func(context.Context, Req) (Resp, error), opts ...Option) (Handler, error) {
	switch {
	case store == nil:
		return nil, configError("store", "", idem.ErrNil)
	case fn == nil:
		return nil, configError("fn", "", idem.ErrNil)
	}
	c, err := idem.ApplyOptions("handler", opts)
	if err != nil {
		return nil, err
	}
	if len(c.invalid) > 0 {
		return nil, c.invalid[0]
	}
	typ, err := request.NewType[Req](c.Request)
	if err != nil {
		return nil, err
	}
	if c.replayType != nil {
		switch resp := reflect.TypeFor[Resp](); {
		case c.replayType != resp:
			return nil, configError("OnReplay", "", fmt.Errorf("takes a %s, where the function returns a %s", c.replayType, resp))
		case c.Idem.DiscardResult:
			return nil, configError("OnReplay", "", errors.New("is a typed replay hook, with idem.WithoutResult: no result is stored to decode"))
		}
	}
	c.Request = typ.Identity()
	run := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		req, err := typ.Decode([]byte(msg.Body))
		if err != nil {
			return nil, err
		}
		resp, err := fn(ctx, req)
		if err != nil {
			return nil, err
		}
		result, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("handler: the result, a %T, does not encode as JSON, so it cannot be stored: %w", resp, err)
		}
		return result, nil
	}
	return New(store, run, func(cfg *Config) { *cfg = c })
}

// WrapTyped is NewTyped for a program's wiring: it panics with NewTyped's
// error, as WrapSQS does with New's.
//
//	lambda.Start(handler.WrapTyped(store, summarise))
func WrapTyped[Req, Resp any](store idem.Store, fn func(context.Context, Req) (Resp, error), opts ...Option) Handler {
	h, err := NewTyped(store, fn, opts...)
	if err != nil {
		panic(err)
	}
	return h
}

// WithTypedReplayHook is WithReplayHook for a typed function (NewTyped):
// f receives the stored result decoded from its JSON form into a Resp,
// which must be the function's result type (NewTyped refuses another).
// A stored result that does not decode fails the record with
// ErrReplayHook and idem.ErrUnreadableResult, and the message comes back.
// It runs as WithReplayHook's hook does; the last of the two given is
// used. Defaults to none.
func WithTypedReplayHook[Resp any](f TypedReplayFunc[Resp]) Option {
	return func(c *Config) {
		if f == nil {
			c.refuse("OnReplay", "", idem.ErrNil)
			c.OnReplay, c.replayType = nil, nil
			return
		}
		c.OnReplay = func(ctx context.Context, msg events.SQSMessage, result []byte) error {
			var resp Resp
			if err := json.Unmarshal(result, &resp); err != nil {
				return fmt.Errorf("%w: the stored result is not a %s: %w", idem.ErrUnreadableResult, reflect.TypeFor[Resp](), err)
			}
			return f(ctx, msg, resp)
		}
		c.replayType = reflect.TypeFor[Resp]()
	}
}
