package durable

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// DefaultConcurrency is how many records of a batch are started at once:
// every record of a batch of the SQS event source's default size (10).
// Each start is one Invoke request, which Lambda throttles per account
// (TooManyRequestsException, a retry).
const DefaultConcurrency = 10

// Config is how a Dispatcher names and starts executions. Every setting
// is declared, defaulted and checked here, once, as every idemq package
// does it (docs/options.md): a zero field is its default, a negative one
// is refused, and the options only set fields. New applies the options
// over the zero Config and resolves it once, refusing every setting that
// cannot be safe at once; Validate is that step without its result.
// WithConfig passes a Config whole.
type Config struct {
	// Request is who each record's request is (request.Identity): where
	// its key comes from and its namespace, read exactly as a handler
	// given the same Identity reads them. Each execution is named after
	// the record key the handler would claim: ExecutionName of the
	// namespace, the scope if any, and the key (request.ID.Key). Its
	// fingerprint settings are not read (Lambda compares the payload
	// itself). Its Namespace defaults to the Lambda function's name
	// (lambdacontext.FunctionName), as the handler's does; outside
	// Lambda, where that is empty, to the program's name, with a
	// warning. Defaults to the zero request.Identity: the body field
	// request.DefaultKeyField.
	Request request.Identity
	// Concurrency is how many records of a batch are started at once; a
	// FIFO message group's records are started one at a time, in order. A
	// negative value is refused. Defaults to DefaultConcurrency.
	Concurrency int
	// Logger receives every record that is not acknowledged and a summary
	// of each batch, in package handler's lines. Defaults to
	// slog.Default().
	Logger *slog.Logger
	// NoBatchError keeps Handle's invocation succeeding when every message
	// of a batch comes back (see handler.Config.NoBatchError). Defaults to
	// false: a batch none of whose starts Lambda accepted, one record at
	// least having failed, fails the invocation with
	// handler.ErrBatchFailed, so the function's Errors metric and error
	// alarms see a Lambda that refuses every start; Lambda brings back the
	// same messages either way.
	NoBatchError bool
}

// Option changes a Config; New applies them in order over the zero
// Config. An option only sets a field: a value that cannot be safe is
// stored as given, and New refuses it.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option {
	cfg.Request = cfg.Request.Clone()
	return func(c *Config) { *c = cfg }
}

// WithRequest sets Config.Request, whole: pass the request.Identity the
// handler, the producer and the command are given, so that each names a
// request by one key. Defaults to the zero request.Identity (the body
// field request.DefaultKeyField, the namespace the function's name).
func WithRequest(id request.Identity) Option {
	id = id.Clone()
	return func(c *Config) { c.Request = id }
}

// WithConcurrency sets Config.Concurrency, the records of a batch started
// at once; a negative n is refused. Defaults to DefaultConcurrency.
func WithConcurrency(n int) Option {
	return func(c *Config) { c.Concurrency = n }
}

// WithLogger sets Config.Logger. Defaults to slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *Config) { c.Logger = l }
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) *idem.ConfigError {
	return &idem.ConfigError{Package: "durable", Field: field, Value: value, Err: err}
}

// Validate reports every setting of c that cannot be safe, each an
// *idem.ConfigError naming its field (a Request setting's names package
// "request"), joined (errors.Join); nil when there is none. It
// is the resolve step New runs, without its result.
func (c Config) Validate() error {
	_, _, err := c.resolve()
	return err
}

// resolve fills in c's defaults and returns it, whether its namespace is
// the program's name (for want of a function's: New warns), or an error
// joining every setting that cannot be safe. It is the one place defaults
// are written and values checked.
func (c Config) resolve() (Config, bool, error) {
	errs := []error{c.Request.Validate()}
	if c.Concurrency < 0 {
		errs = append(errs, configError("Concurrency", fmt.Sprint(c.Concurrency), errors.New("must not be negative (0 is DefaultConcurrency)")))
	}
	if c.Concurrency == 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	program := false
	if c.Request.Namespace == "" {
		var err error
		c.Request.Namespace, program, err = request.DefaultNamespace()
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, false, err
	}
	return c, program, nil
}

// checkFunction refuses a function name without a version or alias:
// Lambda starts durable executions only of a qualified function (a
// version, an alias or $LATEST), each pinned to the version it started on.
func checkFunction(function string) error {
	parts := strings.Split(function, ":")
	want := 2 // name:qualifier
	switch {
	case function == "":
		return configError("function", `""`, errors.New("must name the durable function, with its version or alias (my-function:prod)"))
	case strings.HasPrefix(function, "arn:"):
		want = 8 // arn:aws:lambda:region:account:function:name:qualifier
	case len(parts) > 2 && parts[1] == "function":
		want = 4 // account:function:name:qualifier
	}
	if len(parts) != want || parts[len(parts)-1] == "" {
		return configError("function", fmt.Sprintf("%q", function),
			errors.New("must be qualified with a version or alias (my-function:prod, my-function:3, or an ARN ending in :prod): Lambda starts durable executions only of a qualified function"))
	}
	return nil
}
