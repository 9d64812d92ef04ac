package handler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/request"
)

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
// and may add what the tags leave unset (a KeyAttribute or a KeyFunc
// for a type without key fields, FingerprintFields, NoFingerprint); a
// setting that sets what a tag says, otherwise
// than the tag, is refused. Pass the same Identity to the producer and
// the other parts (the Type's, request.NewType), or Req itself
// (producer.NewTyped).
//
// Each record's body is decoded when its key is read, before any claim:
// a body that does not decode into a Req fails its record with an error
// that is ErrBadBody (a *request.DecodeError), at OpKey, without a claim
// and without running fn; so does a body in which a member the key or
// the fingerprint is made of decodes otherwise into Req's field (a member
// named alike in another case, which encoding/json also matches), so that
// fn never sees another request than its key names. A decoder that panics
// (a Req's UnmarshalJSON) fails the record with ErrPanic the same way. The
// message comes back until it reaches the dead-letter queue. A result
// that does not encode as JSON fails the record after fn ran, and its
// claim is released, as for any error of fn.
//
// NewTyped returns New's errors, joined with an *idem.ConfigError for a
// bad tag of Req, an option that contradicts one, or a typed replay hook
// of another result type than Resp or with idem.Config.DiscardResult.
func NewTyped[Req, Resp any](store idem.Store, fn func(context.Context, Req) (Resp, error), opts ...Option) (Handler, error) {
	c, optErr := optkit.ApplyOptions("handler", opts)
	errs := []error{nilArg("store", store == nil), nilArg("fn", fn == nil), optErr}
	typ, err := request.NewType[Req](c.Request)
	if err != nil {
		// The type's errors say what is wrong with the options' Identity:
		// resolve checks the default's, not the same errors again.
		errs, c.Request = append(errs, err), request.Identity{}
	} else {
		c.Request = typ.Identity()
	}
	if c.replayType != nil {
		switch resp := reflect.TypeFor[Resp](); {
		case c.replayType != resp:
			errs = append(errs, configError("OnReplay", "", fmt.Errorf("takes a %s, where the function returns a %s", c.replayType, resp)))
		case c.Idem.DiscardResult:
			errs = append(errs, configError("OnReplay", "", errors.New("is a typed replay hook, with idem.Config.DiscardResult: no result is stored to decode")))
		}
	}
	w := &wrapper{store: store}
	if typ != nil && fn != nil {
		w.decode = typedWork(typ, fn)
	}
	return newHandler(w, c, errs...)
}

// typedWork decodes a message's body into a Req and returns the work that
// runs fn with it and stores its result as JSON. A panic of the decoder
// is an error wrapping ErrPanic.
func typedWork[Req, Resp any](typ *request.Type[Req], fn func(context.Context, Req) (Resp, error)) func(events.SQSMessage) (idem.Func, error) {
	return func(msg events.SQSMessage) (work idem.Func, err error) {
		defer func() {
			if p := recover(); p != nil {
				work, err = nil, fmt.Errorf("%w decoding the body into a %s: %v", ErrPanic, reflect.TypeFor[Req](), p)
			}
		}()
		req, err := typ.Decode([]byte(msg.Body))
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) ([]byte, error) {
			resp, err := fn(ctx, req)
			if err != nil {
				return nil, err
			}
			result, err := json.Marshal(resp)
			if err != nil {
				return nil, fmt.Errorf("handler: the result, a %T, does not encode as JSON, so it cannot be stored: %w", resp, err)
			}
			return result, nil
		}, nil
	}
}
