package frontdoor

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
)

// Defaults of Config's fields.
const (
	// DefaultKeyField is the member of the JSON body the key is put in,
	// where the worker's handler reads it by default.
	DefaultKeyField = handler.DefaultKeyField
	// DefaultPath is where requests are posted; each one's status is at
	// DefaultPath + "/" + its key.
	DefaultPath = "/requests"
	// DefaultMaxBodyBytes is the largest request body taken: 256 KiB,
	// SQS's message size before queues could be configured for 1 MiB,
	// less room for the key the front door adds.
	DefaultMaxBodyBytes = 256<<10 - 1<<10
	// DefaultEnqueueTimeout bounds one enqueue, and so the front door's
	// claim on a key (idem.Config.Lease, made from the deadline).
	DefaultEnqueueTimeout = 10 * time.Second
	// MaxKeyBytes is the longest Idempotency-Key taken.
	MaxKeyBytes = 255
)

// Config is how a front door accepts, enqueues and answers requests.
// Every setting is declared, defaulted and checked here, once: New applies
// the options over the zero Config and Validate refuses a setting that
// cannot be safe. Only Namespace must be set.
type Config struct {
	// Namespace is the worker's namespace (handler.Config.Namespace): a
	// status read finds the worker's record for a key under it. It must
	// be set: the front door runs in a function of its own, whose name
	// is not the worker's.
	Namespace string
	// AcceptNamespace is the namespace of the front door's own records,
	// one per accepted key, which hold the 202 answer and the request's
	// fingerprint. It must differ from Namespace. Defaults to Namespace
	// followed by "#front".
	AcceptNamespace string
	// KeyField is the member of the JSON body the key is put in, where the
	// worker reads it (handler.Config.KeyField): a member name, without
	// dots or backslashes. Defaults to DefaultKeyField.
	KeyField string
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
	// MaxBodyBytes is the largest request body taken; a larger one is
	// refused with 413. Keep it, with the key the front door adds, within
	// the queue's message size. Defaults to DefaultMaxBodyBytes.
	MaxBodyBytes int
	// EnqueueTimeout bounds one enqueue. The front door's claim on a key
	// lasts as long plus idem.Config.LeaseMargin (unless Idem.Lease is
	// set), so a front door that crashed while enqueuing holds the key no
	// longer. Defaults to DefaultEnqueueTimeout.
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
	// every other caller's: the key a request is stored and enqueued
	// under, and its result read by, is the scope and the client's key as
	// one natural key value (idem.NaturalValue), and a request whose
	// scope it cannot tell is refused with 403, enqueuing and reading
	// nothing. The client sees its own key only, in answers and status
	// URLs. Set it whenever more than one caller can reach the front
	// door. Defaults to nil: no scope, one key space shared by every
	// caller, so a caller that posts or reads another's key is answered
	// the other's request (its 202, its result).
	Scope ScopeFunc
	// CheckBody checks each POST's body as the worker will receive it,
	// before anything is stored or enqueued; an error refuses it with 400
	// (see BodyCheck, BodyCheckOf). Defaults to nil: any JSON object.
	CheckBody BodyCheck
}

// Option changes a Config.
type Option func(*Config)

// WithNamespace sets Config.Namespace, the worker's namespace.
func WithNamespace(ns string) Option { return func(c *Config) { c.Namespace = ns } }

// WithAcceptNamespace sets Config.AcceptNamespace.
func WithAcceptNamespace(ns string) Option { return func(c *Config) { c.AcceptNamespace = ns } }

// WithKeyField sets Config.KeyField.
func WithKeyField(field string) Option { return func(c *Config) { c.KeyField = field } }

// WithPath sets Config.Path.
func WithPath(path string) Option { return func(c *Config) { c.Path = path } }

// WithKeyOptional sets Config.KeyOptional: a POST without an
// Idempotency-Key is enqueued under a key of its own.
func WithKeyOptional() Option { return func(c *Config) { c.KeyOptional = true } }

// WithMaxBodyBytes sets Config.MaxBodyBytes.
func WithMaxBodyBytes(n int) Option { return func(c *Config) { c.MaxBodyBytes = n } }

// WithEnqueueTimeout sets Config.EnqueueTimeout.
func WithEnqueueTimeout(d time.Duration) Option { return func(c *Config) { c.EnqueueTimeout = d } }

// WithIdem applies opts to Config.Idem.
func WithIdem(opts ...idem.Option) Option {
	return func(c *Config) {
		for _, opt := range opts {
			if opt != nil {
				opt(&c.Idem)
			}
		}
	}
}

// WithLogger sets Config.Logger.
func WithLogger(l *slog.Logger) Option { return func(c *Config) { c.Logger = l } }

// WithScope sets Config.Scope: each caller's keys are its own.
func WithScope(f ScopeFunc) Option { return func(c *Config) { c.Scope = f } }

// Validate reports the first setting of c that cannot be safe, as an
// *idem.ConfigError naming its field (an idem.Config field's error names
// package "idem"), or nil. Zero fields take their defaults. New calls it.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in the defaults and checks every setting: the one place
// both are written.
func (c Config) resolve() (Config, error) {
	if c.AcceptNamespace == "" && c.Namespace != "" {
		c.AcceptNamespace = c.Namespace + "#front"
	}
	if c.KeyField == "" {
		c.KeyField = DefaultKeyField
	}
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.EnqueueTimeout == 0 {
		c.EnqueueTimeout = DefaultEnqueueTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	bad := func(field, value string, reason string) (Config, error) {
		return Config{}, configError(field, value, errors.New(reason))
	}
	switch {
	case c.Namespace == "":
		return bad("Namespace", `""`, "must be set to the worker's namespace (handler.Config.Namespace)")
	case c.AcceptNamespace == c.Namespace:
		return bad("AcceptNamespace", fmt.Sprintf("%q", c.AcceptNamespace), "must differ from Namespace: the front door's records would take the worker's keys")
	case strings.ContainsAny(c.KeyField, `.\`):
		return bad("KeyField", fmt.Sprintf("%q", c.KeyField), "must be a member name without dots or backslashes: the key is put at the top of the body")
	case !strings.HasPrefix(c.Path, "/") || strings.HasSuffix(c.Path, "/") || strings.ContainsAny(c.Path, "{}? \t"):
		return bad("Path", fmt.Sprintf("%q", c.Path), `must start with "/" and not end with one, like "/requests"`)
	case c.MaxBodyBytes < 0:
		return bad("MaxBodyBytes", fmt.Sprint(c.MaxBodyBytes), "must be at least 1")
	case c.EnqueueTimeout < 0:
		return bad("EnqueueTimeout", c.EnqueueTimeout.String(), "must be positive")
	}
	// The claim lasts as long as an enqueue may, and a margin.
	if c.Idem.Lease == 0 {
		margin := c.Idem.LeaseMargin
		if margin == 0 {
			margin = idem.DefaultLeaseMargin
		}
		c.Idem.Lease = c.EnqueueTimeout + margin
	}
	ic := c.Idem
	var err error
	if c.Idem, err = idem.NewConfig(func(cfg *idem.Config) { *cfg = ic }); err != nil {
		return Config{}, err
	}
	return c, nil
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) *idem.ConfigError {
	return &idem.ConfigError{Package: "frontdoor", Field: field, Value: value, Err: err}
}
