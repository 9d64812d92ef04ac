package handler

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"time"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// Config is how a Handler turns a batch into claims and a response. Every
// setting is declared, defaulted and checked here, once: New applies the
// options over the zero Config, Validate refuses a setting that cannot be
// safe, and the zero value takes every default. The With* options set its
// fields and never fail; a bad value they were given is reported by
// Validate, naming the field. A Config made whole is passed as an option
// of its own:
//
//	h, err := handler.New(store, fn, func(c *handler.Config) { *c = cfg })
type Config struct {
	// Request is who each record's request is: the namespace every key
	// starts with, where the key comes from (a body field, several, a
	// message attribute or a function), and the fields its payload is
	// checked by; one value shared with the producer, the front door, the
	// dispatcher and the command (see WithRequest; WithNamespace,
	// WithKeyField, WithKeyFields, WithKeyAttribute, WithKeyFunc,
	// WithFingerprintFields and WithoutFingerprint change one of its
	// fields). Its Namespace defaults to the Lambda function's name
	// (lambdacontext.FunctionName); outside Lambda, where that is empty,
	// to the program's name, with a warning. Defaults to the zero
	// request.Identity: the body field DefaultKeyField, the whole body as
	// the fingerprint.
	Request request.Identity
	// Keyless runs records that carry no key without idempotency (see
	// WithKeyless). Defaults to false: such a record is a batch item
	// failure.
	Keyless bool

	// Concurrency is how many records of a batch run at once, at least 1.
	// Defaults to DefaultConcurrency.
	Concurrency int
	// DeadlineReserve is the deadline guard (see WithDeadlineReserve): a
	// record not yet started when less than it is left before the
	// invocation's deadline is reported as a failure without starting. A
	// negative value turns the guard off (WithDeadlineReserve(0) sets
	// NoDeadlineReserve). Defaults to DefaultDeadlineReserve, capped at
	// half the time the invocation had when the batch began.
	DeadlineReserve time.Duration
	// FIFOGroupIsolation narrows what a failure stops on a FIFO queue to
	// the failed record's message group (see WithFIFOGroupIsolation).
	// Defaults to false: every record after the first failure fails.
	FIFOGroupIsolation bool

	// Idem is how each record's key is claimed, extended and completed:
	// the lease, the record expiry, the heartbeat, the clock, compression
	// and blobs, declared, defaulted and checked by idem.Config. Its clock
	// also times the deadline guard and the back-off. Defaults to
	// idem.Config's defaults.
	Idem idem.Config

	// OnReplay is called with the stored result of every record that is
	// not executed because its key was done before (see WithReplayHook).
	// Defaults to none.
	OnReplay ReplayFunc
	// replayType is the result type a typed replay hook decodes into
	// (WithTypedReplayHook), which NewTyped holds against its function's;
	// nil for an untyped hook or none.
	replayType reflect.Type
	// OnFailure is called for every record reported as a batch item
	// failure (see WithFailureHook). Defaults to none: failures are
	// logged.
	OnFailure FailureFunc

	// CacheEntries and CacheBytes bound the in-memory cache of completed
	// results (see WithCache): both positive, or both 0. Default to 0:
	// off.
	CacheEntries, CacheBytes int

	// Backoff is the SQS client that sets the visibility timeout of each
	// record found in progress on another worker (see WithBackoff).
	// Defaults to nil: off.
	Backoff VisibilityChanger
	// QueueURL is the queue URL the back-off uses. Defaults to the URL
	// derived from each record's event source ARN.
	QueueURL string

	// Logger receives the per-batch summary and per-record failures.
	// Defaults to slog.Default().
	Logger *slog.Logger
	// EMF is where one CloudWatch Embedded Metric Format line is written
	// after each batch, under the CloudWatch namespace EMFNamespace (see
	// WithEMF); both or neither must be set. Defaults to nil: off.
	EMF          io.Writer
	EMFNamespace string

	// Tracer is told of each batch, record and store call (see Tracer and
	// WithTracer). Defaults to nil: off.
	Tracer Tracer

	// invalid holds what the With* options were given that no field can
	// hold (WithConcurrency(0) would read as the default): Validate
	// reports the first.
	invalid []error
}

// NoDeadlineReserve is the Config.DeadlineReserve that turns the deadline
// guard off; any negative value does.
const NoDeadlineReserve time.Duration = -1

// errEmpty and errNotPositive say what is wrong with a setting.
var (
	errEmpty       = errors.New("must not be empty")
	errNotPositive = errors.New("must be at least 1")
)

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) *idem.ConfigError {
	return &idem.ConfigError{Package: "handler", Field: field, Value: value, Err: err}
}

// refuse records, for Validate, a value an option was given that its
// field cannot hold.
func (c *Config) refuse(field, value string, err error) {
	c.invalid = append(c.invalid, configError(field, value, err))
}

// Validate reports the first setting of c that cannot be safe, as an
// *idem.ConfigError naming its field (an idem.Config field's error names
// package "idem"), or nil. New calls it.
func (c Config) Validate() error {
	if len(c.invalid) > 0 {
		return c.invalid[0]
	}
	if err := c.Request.Validate(); err != nil {
		return err
	}
	switch {
	case c.Concurrency < 0:
		return configError("Concurrency", fmt.Sprint(c.Concurrency), errNotPositive)
	case c.CacheEntries < 0 || (c.CacheEntries == 0 && c.CacheBytes != 0):
		return configError("CacheEntries", fmt.Sprint(c.CacheEntries), errors.New("must be at least 1 with CacheBytes"))
	case c.CacheBytes < 0 || (c.CacheBytes == 0 && c.CacheEntries != 0):
		return configError("CacheBytes", fmt.Sprint(c.CacheBytes), errors.New("must be at least 1 with CacheEntries"))
	case c.EMF != nil && c.EMFNamespace == "":
		return configError("EMFNamespace", `""`, errors.New("must be set with EMF"))
	case c.EMF == nil && c.EMFNamespace != "":
		return configError("EMF", "", errors.New("is nil, with EMFNamespace set"))
	}
	return c.Idem.Validate()
}

// New returns a Lambda handler that runs fn for each record of an SQS
// batch at most once per idempotency key, claiming the key in store first,
// and reports the records that must come back as batch item failures:
//
//	h, err := handler.New(store, fn)
//	if err != nil {
//		return err
//	}
//	lambda.Start(h)
//
// With no options the key is the body's "idempotency_key" field, namespaced
// by the function's name, and the whole body is the payload fingerprint.
//
// Outside Lambda, without WithNamespace, the namespace is the program's
// name (its executable's base name, like "handler.test"), with a warning
// logged: fine for tests and local runs, not for a table that other
// programs share. New returns an *idem.ConfigError naming the setting if
// store, fn or an option is nil, if a setting cannot be safe
// (Config.Validate), or if there is no namespace to be had. The handler
// returns an error only when a failed record has no message id (Lambda
// could not be told which one failed, so the whole batch must come back);
// store errors fail the records they touch.
func New(store idem.Store, fn Func, opts ...Option) (Handler, error) {
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
	set, err := c.resolve()
	if err != nil {
		return nil, err
	}
	if set.tracer != nil {
		store = tracedStore{store: store, tracer: set.tracer}
	}
	w := &wrapper{store: store, fn: fn, settings: set}
	if set.cacheEntries > 0 {
		w.cache = newCache(set.cacheEntries, set.cacheBytes)
	}
	return w.handle, nil
}

// settings is a Config resolved by New: what a batch reads, every default
// filled in.
type settings struct {
	namespace     string
	keyName       string          // for logs: where the key comes from
	reader        *request.Reader // each record's key and fingerprint
	keyless       bool
	concurrency   int
	reserve       time.Duration
	reserveSet    bool
	fifoGroupOnly bool
	claims        idem.Config // Config.Idem, resolved once by New
	onReplay      ReplayFunc
	onFailure     FailureFunc
	cacheEntries  int
	cacheBytes    int
	backoff       VisibilityChanger
	queueURL      string
	logger        *slog.Logger
	emf           io.Writer
	emfNamespace  string
	tracer        Tracer // nil: off
}

// resolve validates c and turns it into the options a batch reads, with
// every default filled in. It is the one place defaults are written.
func (c Config) resolve() (settings, error) {
	if err := c.Validate(); err != nil {
		return settings{}, err
	}
	set := settings{
		namespace:     c.Request.Namespace,
		keyName:       c.Request.Source(),
		keyless:       c.Keyless,
		concurrency:   c.Concurrency,
		fifoGroupOnly: c.FIFOGroupIsolation,
		onReplay:      c.OnReplay,
		onFailure:     c.OnFailure,
		cacheEntries:  c.CacheEntries,
		cacheBytes:    c.CacheBytes,
		backoff:       c.Backoff,
		queueURL:      c.QueueURL,
		logger:        c.Logger,
		emf:           c.EMF,
		emfNamespace:  c.EMFNamespace,
		tracer:        c.Tracer,
	}
	if set.concurrency == 0 {
		set.concurrency = DefaultConcurrency
	}
	switch {
	case c.DeadlineReserve < 0:
		set.reserve, set.reserveSet = 0, true
	case c.DeadlineReserve > 0:
		set.reserve, set.reserveSet = c.DeadlineReserve, true
	}
	claims := c.Idem
	var err error
	if set.claims, err = idem.NewConfig(func(ic *idem.Config) { *ic = claims }); err != nil {
		return settings{}, err
	}
	if set.logger == nil {
		set.logger = slog.Default()
	}
	if set.namespace == "" {
		set.namespace = lambdacontext.FunctionName
	}
	if set.namespace == "" {
		// Outside Lambda (a test, a local run): the program's name stands
		// in for the function's, as stable as the binary's name.
		if set.namespace = programName(); set.namespace == "" {
			return settings{}, configError("Namespace", `""`, errors.New("must be set: AWS_LAMBDA_FUNCTION_NAME is unset and the program has no name"))
		}
		set.logger.Warn("idemq: no namespace (AWS_LAMBDA_FUNCTION_NAME is unset); using the program's name. "+
			"Programs sharing a table must each pass handler.WithNamespace", "namespace", set.namespace)
	}
	id := c.Request
	id.Namespace = set.namespace
	if set.reader, err = request.NewReader(id); err != nil {
		return settings{}, err
	}
	return set, nil
}
