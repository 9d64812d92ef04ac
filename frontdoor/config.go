package frontdoor

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/queue"
	"github.com/idemq/idemq/request"
)

// Defaults of Config's fields.
const (
	// DefaultPath is where requests are posted; each one's status is at
	// DefaultPath + "/" + its key.
	DefaultPath = "/requests"
	// DefaultMaxBodyBytes is the largest request body read: 1 MiB, the
	// largest message SQS takes (queue.MaxMessageBytes). The message as it
	// is sent (the body, the key put in it, its attributes) must also fit
	// the queue's own limit, which the queue checks (producer's
	// Config.MaxMessageBytes): a body whose message does not is refused
	// with 413 too.
	DefaultMaxBodyBytes = queue.MaxMessageBytes
	// defaultEnqueueTimeout bounds one enqueue, and so the front door's
	// claim on a key (idem.Config.Lease, made from the deadline).
	defaultEnqueueTimeout = 10 * time.Second
	// MaxKeyBytes is the longest Idempotency-Key taken.
	MaxKeyBytes = 255
)

// Config is how a front door accepts, enqueues and answers requests.
// Every setting is declared, defaulted and checked here, once, as every
// idemq package does it (docs/options.md): a zero field is its default, a
// negative one is refused, and the options only set fields. New applies
// the options over the zero Config and resolves it once, refusing every
// setting that cannot be safe at once; Validate is that step without its
// result. WithConfig passes a Config whole, and an Option of your own
// sets one field. Only Request.Namespace must be set:
//
//	fd, err := frontdoor.New(store, q, frontdoor.WithConfig(frontdoor.Config{Request: id, Path: "/jobs", KeyOptional: true}))
type Config struct {
	// Request is who each request is: the same request.Identity the
	// worker's handler is given (handler.WithRequest) and the queue sends
	// by (producer.WithRequest). Its Namespace is required: the worker's,
	// under which the worker keeps its records (the front door runs in a
	// function of its own, whose name is not the worker's). Its key
	// source says what the Idempotency-Key is: with KeyField (the
	// default, request.DefaultKeyField) or KeyAttribute the front door puts the
	// key there, and it is the key the worker claims; with KeyFields or
	// KeyFunc the body makes the worker's key, and the Idempotency-Key is
	// the front door's own handle for the POST. Either way the front door
	// keeps the worker's key in its record, so a status read finds the
	// worker's record for every key rule. Defaults to the zero
	// request.Identity, whose empty Namespace is refused.
	Request request.Identity
	// AcceptNamespace is the namespace of the front door's own records,
	// one per accepted Idempotency-Key, which hold the 202 answer, the
	// request's fingerprint and the key of the worker's record. It must
	// differ from Request.Namespace. Defaults to Request.Namespace
	// followed by "#front".
	AcceptNamespace string
	// Path is where requests are posted; a request's status is read at
	// Path + "/" + its key (escaped). It starts with "/" and does not end
	// with one. Defaults to DefaultPath.
	Path string
	// KeyOptional accepts a POST without an Idempotency-Key: it is
	// enqueued under a random key of its own, returned in the
	// Idempotency-Key response header, so each such POST is a new request
	// and a retry of it is another. Defaults to false: a POST without the
	// header is refused with 400.
	KeyOptional bool
	// MaxBodyBytes is the largest request body read; a larger one is
	// refused with 413 before it is read whole. A body within it whose
	// message, as it is sent (with the key put in it and the caller's
	// scope attribute), exceeds the queue's message size is refused with
	// 413 as well, by the queue's check (producer.ErrTooLarge). Set it
	// lower to refuse large bodies sooner. Defaults to
	// DefaultMaxBodyBytes.
	MaxBodyBytes int
	// EnqueueTimeout bounds one enqueue. The front door's claim on a key
	// lasts as long plus idem.Config.LeaseMargin (unless Idem.Lease is
	// set), so a front door that crashed while enqueuing holds the key no
	// longer. Defaults to 10 s.
	EnqueueTimeout time.Duration
	// Idem is how the front door claims keys and reads results: Expiry is
	// how long an accepted key is remembered (a POST after it is a new
	// request), Blobs must be the worker's blob store for the front door
	// to read a result the worker offloaded, and MaxDecodedBytes bounds a
	// compressed result read. Defaults to idem.Config's defaults.
	Idem idem.Config
	// Logger receives the errors answered with a 5xx, and the callers
	// refused for want of a scope. Defaults to slog.Default().
	Logger *slog.Logger
	// Scope names each request's caller, whose keys are kept apart from
	// every other caller's: the request is sent with the scope in the
	// message attribute request.ScopeAttribute, so the worker keeps it
	// under idem.ScopedKey(namespace, scope, key), a key no unscoped
	// request (and no other caller) can reach, and the front door keeps
	// its own record under idem.ScopedKey(AcceptNamespace, scope, key). A
	// request whose scope it cannot tell is refused with 403, enqueuing
	// and reading nothing; a scope the key rule (idem.CheckValue) refuses
	// is the caller's error (400 at a POST, 404 at a GET). The client
	// sees its own key only, in answers and status URLs. Set it whenever
	// more than one caller can reach the front door. Defaults to nil: no
	// scope, one key space shared by every caller, so a caller that posts
	// or reads another's key is answered the other's request (its 202,
	// its result).
	Scope func(r *http.Request) (string, error)
	// CheckBody checks each POST's body as the worker will receive it (the
	// key in place), before anything is stored or enqueued. An error
	// refuses the request with 400 and a problem whose detail is the
	// error's text, so it should say what is wrong with the body and
	// nothing else (BodyCheckOf makes the check of a request type).
	// Defaults to nil: any JSON object.
	CheckBody func(body []byte) error
}

// Option changes a Config; New applies them in order over the zero
// Config. An option only sets a field: a value that cannot be safe is
// stored as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// whose empty Request.Namespace is refused.
func WithConfig(cfg Config) Option {
	cfg.Request = cfg.Request.Clone()
	return func(c *Config) { *c = cfg }
}

// WithRequest sets Config.Request, whole: pass the worker's handler's
// and the queue's. Defaults to the zero request.Identity, whose empty
// Namespace is refused.
func WithRequest(id request.Identity) Option {
	id = id.Clone()
	return func(c *Config) { c.Request = id }
}

// WithLogger sets Config.Logger. Defaults to slog.Default().
func WithLogger(l *slog.Logger) Option { return func(c *Config) { c.Logger = l } }

// Validate reports every setting of c that cannot be safe, each an
// *idem.ConfigError naming its field (an idem.Config field's names package
// "idem", a request.Identity field's package "request"), joined
// (errors.Join); nil when there is none. Zero fields take their
// defaults. It is the resolve step New runs, without its result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks every setting: the one place
// both are written. It returns an error joining every setting that cannot
// be safe.
func (c Config) resolve() (Config, error) {
	errs := []error{c.Request.Validate()}
	ns := c.Request.Namespace
	if c.AcceptNamespace == "" && ns != "" {
		c.AcceptNamespace = ns + "#front"
	}
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.EnqueueTimeout == 0 {
		c.EnqueueTimeout = defaultEnqueueTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	bad := func(field, value string, reason string) {
		errs = append(errs, configError(field, value, errors.New(reason)))
	}
	switch {
	case ns == "":
		bad("Namespace", `""`, "must be set to the worker's namespace (Request.Namespace, the handler's)")
	case c.AcceptNamespace == ns:
		bad("AcceptNamespace", fmt.Sprintf("%q", c.AcceptNamespace), "must differ from Request.Namespace: the front door's records would take the worker's keys")
	}
	if c.AcceptNamespace != "" && idem.CheckValue(c.AcceptNamespace) != nil {
		bad("AcceptNamespace", fmt.Sprintf("%q", c.AcceptNamespace), "must obey the key rule (idem.CheckValue): UTF-8 text without control characters, at most idem.MaxValueBytes bytes")
	}
	if !strings.HasPrefix(c.Path, "/") || strings.HasSuffix(c.Path, "/") || strings.ContainsAny(c.Path, "{}? \t") {
		bad("Path", fmt.Sprintf("%q", c.Path), `must start with "/" and not end with one, like "/requests"`)
	}
	if c.MaxBodyBytes < 0 {
		bad("MaxBodyBytes", fmt.Sprint(c.MaxBodyBytes), "must not be negative (0 is DefaultMaxBodyBytes)")
	}
	if c.EnqueueTimeout < 0 {
		bad("EnqueueTimeout", c.EnqueueTimeout.String(), "must not be negative (0 is the default, 10 s)")
	}
	// The claim lasts as long as an enqueue may, and a margin.
	if c.Idem.Lease == 0 && c.EnqueueTimeout > 0 {
		margin := c.Idem.LeaseMargin
		if margin <= 0 {
			margin = idem.DefaultLeaseMargin
		}
		c.Idem.Lease = c.EnqueueTimeout + margin
	}
	var err error
	if c.Idem, err = idem.NewConfig(idem.WithConfig(c.Idem)); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) *idem.ConfigError {
	return &idem.ConfigError{Package: "frontdoor", Field: field, Value: value, Err: err}
}
