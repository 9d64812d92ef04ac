package request

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/optkit"
)

// FuncConfig is how NewFunc makes a function idempotent. It is
// declared, defaulted and checked as every idemq package does it
// (docs/options.md): a zero field is its default, the options only set
// fields, and NewFunc resolves it once, refusing every setting that cannot
// be safe at once. WithConfig passes a FuncConfig whole. Request's
// Namespace must be set; every other field has a default.
type FuncConfig struct {
	// Request is who a call's request is. Its Namespace must be set:
	// functions that share a store must not share keys. Where the key
	// comes from and what the fingerprint covers are merged with the
	// request type's tags (NewType): the key is read from the request's
	// JSON form, from its KeyField or KeyFields (a KeyAttribute or a
	// KeyFunc, which read messages, is refused: use WithKeyOf). Defaults
	// to the request type's Identity: its tags' key, and its tags'
	// fingerprint, else the whole JSON form.
	Request Identity
	// Idem is how each call's key is claimed, extended and completed (the
	// lease, the expiry, the heartbeat, the clock, compression); a
	// wrapped function replays its result, so DiscardResult is refused.
	// Defaults to idem.Config's defaults.
	Idem idem.Config

	keyOf any // a func(Req) (string, error), set by WithKeyOf; nil: none
}

// FuncOption changes a FuncConfig; NewFunc applies them in order over the
// zero FuncConfig. An option only sets a field: a value that cannot be
// safe is stored as given, and NewFunc refuses it.
type FuncOption func(*FuncConfig)

// WithConfig sets the whole FuncConfig: options after it change its
// fields, and options before it are overwritten. Defaults to the zero
// FuncConfig, whose empty Request.Namespace is refused.
func WithConfig(cfg FuncConfig) FuncOption {
	cfg.Request = cfg.Request.Clone()
	return func(c *FuncConfig) { *c = cfg }
}

// WithRequest sets FuncConfig.Request, whole; its Namespace is
// required. Defaults to the request type's Identity, without a namespace,
// which NewFunc refuses.
func WithRequest(id Identity) FuncOption {
	id = id.Clone()
	return func(c *FuncConfig) { c.Request = id }
}

// WithIdem applies opts, in order, to FuncConfig.Idem; idem.WithConfig
// sets it whole. Like every idemq option that takes idem options, WithIdem
// returns nil when one of opts is nil, and NewFunc refuses a nil option.
// Defaults to none: idem.Config's defaults.
func WithIdem(opts ...idem.Option) FuncOption {
	for _, opt := range opts {
		if opt == nil {
			return nil
		}
	}
	opts = slices.Clone(opts)
	return func(c *FuncConfig) {
		for _, opt := range opts {
			opt(&c.Idem)
		}
	}
}

// WithKeyOf takes each call's key, within the namespace, from f: for a
// request type without a key field, such as a Lambda event
// (events.APIGatewayProxyRequest's Idempotency-Key header). Returning ""
// or an error wrapping idem.ErrNoKey says the request has no key; the
// call then fails without running the function. Req must be the wrapped
// function's request type, which NewFunc checks. It cannot be given with
// a key field, from the options or from the type's tags. Defaults to
// none (a nil f): the key comes from the request's JSON form.
func WithKeyOf[Req any](f func(Req) (string, error)) FuncOption {
	return func(c *FuncConfig) {
		c.keyOf = nil
		if f != nil {
			c.keyOf = f
		}
	}
}

// NewFunc returns fn made idempotent, with fn's own signature, as
// Powertools' makeIdempotent does: a call runs fn once per key, whatever
// the number of calls with that key, on any number of workers (idem.Do).
// The key and the fingerprint are those of the request's JSON form, read
// by the Identity that Req's tags and the options make (NewType), or the
// key is what WithKeyOf's function returns; a request without a key is
// never run, its call failing with idem.ErrNoKey (or idem.ErrBadKey,
// ErrBadBody). fn's result is stored as JSON (encoding/json) and a later
// call with the key gets it decoded into a Resp without running fn; the
// call that ran fn gets fn's own value. Resp must survive that round
// trip.
//
// The wrapped function returns what a caller matches:
//
//   - a result: fn ran now (its result stored, or, too large to store,
//     the key completed without it; or another claim completed the key
//     meanwhile), or it had run and its result is replayed;
//   - an *idem.InProgressError (errors.Is(err, idem.ErrInProgress)):
//     another call holds the key; try again after its LeaseUntil;
//   - fn's error, in an *idem.Error for op "run": the claim is released,
//     and a retry runs fn again;
//   - an *idem.Error for op "complete" when fn ran but its result could
//     not be stored (the key is not settled: a retry may run fn again),
//     or for op "claim" or "replay" when the store failed, the payload
//     differs from the one stored for the key (idem.ErrPayloadMismatch),
//     or the stored result does not decode (idem.ErrUnreadableResult; a
//     result completed without its value, idem.ErrResultTooLarge).
//
// NewFunc returns an error joining an *idem.ConfigError for every bad
// setting (joined): store, fn or an option is nil, the
// namespace is not set, Req's tags are bad or contradict the options, the
// key fields are not members of Req's JSON form, or a setting of
// idem.Config cannot be safe.
func NewFunc[Req, Resp any](store idem.Store, fn func(context.Context, Req) (Resp, error), opts ...FuncOption) (func(context.Context, Req) (Resp, error), error) {
	var errs []error
	if store == nil {
		errs = append(errs, configError("store", "", optkit.ErrNil))
	}
	if fn == nil {
		errs = append(errs, configError("fn", "", optkit.ErrNil))
	}
	c, err := optkit.ApplyOptions("request", opts)
	errs = append(errs, err)
	w := &wrapped[Req, Resp]{store: store, fn: fn}
	if w.claims, err = c.resolve(); err != nil {
		errs = append(errs, err)
	}
	if c.keyOf != nil {
		var ok bool
		if w.keyOf, ok = c.keyOf.(func(Req) (string, error)); !ok {
			errs = append(errs, configError("KeyOf", fmt.Sprintf("%T", c.keyOf), fmt.Errorf("is not a func(%s) (string, error): give WithKeyOf a function of the wrapped function's request", reflect.TypeFor[Req]())))
		}
	}
	// A key attribute or function, which check refuses, is left out of
	// the type's Identity, so that it is not refused twice.
	id := c.Request
	id.KeyAttribute, id.KeyFunc = "", nil
	if w.typ, err = NewType[Req](id); err != nil {
		errs = append(errs, err)
	} else {
		errs = append(errs, w.checkFields())
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return w.call, nil
}

// Validate reports every setting of c that cannot be safe for any request
// type (no namespace, a key attribute or function, idem.Config's settings),
// each an *idem.ConfigError, joined (errors.Join); nil when
// there is none. It is the resolve step NewFunc runs, without its result;
// NewFunc then checks c against the request type.
func (c FuncConfig) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve checks what of c does not depend on the request type and
// returns its idem.Config, resolved, or an error joining every setting
// that cannot be safe.
func (c FuncConfig) resolve() (idem.Config, error) {
	claims, err := idem.NewConfig(idem.WithConfig(c.Idem))
	if err := errors.Join(c.check(), err); err != nil {
		return idem.Config{}, err
	}
	return claims, nil
}

// check refuses what no wrapped function can do.
func (c FuncConfig) check() error {
	var errs []error
	if c.Request.Namespace == "" {
		errs = append(errs, configError("Namespace", `""`, errors.New("must be set: functions sharing a store must not share keys")))
	}
	if c.Request.KeyAttribute != "" {
		errs = append(errs, configError("KeyAttribute", fmt.Sprintf("%q", c.Request.KeyAttribute), errors.New("a function's request has no message attributes: use WithKeyOf")))
	}
	if c.Request.KeyFunc != nil {
		errs = append(errs, configError("KeyFunc", "", errors.New("reads messages, not a function's request: use WithKeyOf")))
	}
	if c.Idem.DiscardResult {
		errs = append(errs, &idem.ConfigError{Package: "idem", Field: "DiscardResult", Value: "true", Err: errors.New("a wrapped function replays its result: it must be stored")})
	}
	return errors.Join(errs...)
}

// checkFields refuses a key from fields, or fingerprint fields, that the
// request type's JSON form cannot have, and a key function given with key
// fields.
func (w *wrapped[Req, Resp]) checkFields() error {
	id := w.typ.Identity()
	t := reflect.TypeFor[Req]()
	var errs []error
	absent := func(field, f string) {
		errs = append(errs, configError(field, fmt.Sprintf("%q", f), fmt.Errorf("is no member of the JSON form of %s: tag its fields idemq:\"key\", or give WithKeyOf", typeName(t))))
	}
	key := id.keySource()
	switch {
	case w.keyOf != nil && key.field != "":
		errs = append(errs, configError("KeyOf", "", fmt.Errorf("is given with %s %s: a key has one source", key.field, key.value)))
	case w.keyOf != nil:
	case id.KeyField != "" || key.field == "":
		f := id.Defaulted().KeyField
		if _, _, found, _ := fieldOf(t, f); !found {
			absent("KeyField", f)
		}
	default:
		for _, f := range id.KeyFields {
			if _, _, found, _ := fieldOf(t, f); !found {
				absent("KeyFields", f)
			}
		}
	}
	for _, f := range id.FingerprintFields {
		if _, _, found, _ := fieldOf(t, f); !found {
			errs = append(errs, configError("FingerprintFields", fmt.Sprintf("%q", f), fmt.Errorf("is no member of the JSON form of %s", typeName(t))))
		}
	}
	return errors.Join(errs...)
}

// wrapped is a function NewFunc made idempotent.
type wrapped[Req, Resp any] struct {
	store  idem.Store
	fn     func(context.Context, Req) (Resp, error)
	typ    *Type[Req]
	keyOf  func(Req) (string, error) // nil: the key is read from the request's JSON form
	claims idem.Config
}

// id is the identity of req: its key and its fingerprint.
func (w *wrapped[Req, Resp]) id(req Req) (ID, error) {
	if w.keyOf == nil {
		return w.typ.ID(req)
	}
	value, err := w.keyOf(req)
	switch {
	case err != nil:
		return ID{}, err
	case value == "":
		return ID{}, fmt.Errorf("%w: the key function returned an empty key", idem.ErrNoKey)
	}
	id, err := w.typ.reader.ID(value, "")
	if err != nil {
		return ID{}, err
	}
	body, err := w.typ.Body(req)
	if err != nil {
		return ID{}, err
	}
	if id.Fingerprint, err = w.typ.reader.fp(&message{msg: &events.SQSMessage{Body: string(body)}}); err != nil {
		return ID{}, err
	}
	return id, nil
}

// call runs one call of the wrapped function.
func (w *wrapped[Req, Resp]) call(ctx context.Context, req Req) (Resp, error) {
	var zero Resp
	id, err := w.id(req)
	if err != nil {
		return zero, fmt.Errorf("request: the key of a %s: %w", w.typ.name, err)
	}
	var fresh Resp
	res, err := w.claims.Do(ctx, w.store, id.Key, id.Fingerprint, func(ctx context.Context) ([]byte, error) {
		resp, err := w.fn(ctx, req)
		if err != nil {
			return nil, err
		}
		fresh = resp
		stored, err := json.Marshal(resp)
		if err != nil {
			return nil, fmt.Errorf("request: the result, a %T, does not encode as JSON, so it cannot be stored: %w", resp, err)
		}
		return stored, nil
	})
	switch {
	case res.Outcome == idem.Executed:
		// Stored, or (err wrapping idem.ErrResultTooLarge) the key
		// completed without it: either way settled, and fn's value is
		// at hand.
		return fresh, nil
	case res.Outcome == idem.Superseded && res.Holder == idem.StatusCompleted:
		// Another claim completed the key: settled.
		return fresh, nil
	case err != nil:
		return zero, err
	case res.Outcome == idem.InProgress:
		return zero, &idem.InProgressError{Key: id.Key, LeaseUntil: res.LeaseUntil}
	case res.Outcome == idem.Replayed && res.Omitted:
		return zero, &idem.Error{Op: idem.OpReplay, Key: id.Key, Err: fmt.Errorf("the key was completed without its result: %w", idem.ErrResultTooLarge)}
	case res.Outcome == idem.Replayed:
		var out Resp
		if err := json.Unmarshal(res.Value, &out); err != nil {
			return zero, &idem.Error{Op: idem.OpReplay, Key: id.Key, Err: fmt.Errorf("%w: the stored result is not a %s: %w", idem.ErrUnreadableResult, reflect.TypeFor[Resp](), err)}
		}
		return out, nil
	}
	// Not reached: Do returns an error with every other outcome.
	return zero, &idem.Error{Op: idem.OpClaim, Key: id.Key, Err: fmt.Errorf("no result: outcome %s", res.Outcome)}
}
