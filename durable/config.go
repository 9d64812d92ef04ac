package durable

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
)

// DefaultConcurrency is how many records of a batch are started at once:
// every record of a batch of the SQS event source's default size (10).
// Each start is one Invoke request, which Lambda throttles per account
// (TooManyRequestsException, a retry).
const DefaultConcurrency = 10

// Config is how a Dispatcher names and starts executions. New applies the
// options over the zero Config, Validate refuses a setting that cannot be
// safe, and the zero value takes every default.
type Config struct {
	// Key is where each record's key comes from, read exactly as a
	// handler.Handler with these settings reads it (handler.KeyReader):
	// KeyField, KeyFields, KeyAttribute or KeyFunc. Only its key settings
	// are read; Keyless is refused, since a record without a key has no
	// execution name to guard its start. Defaults to the body field
	// handler.DefaultKeyField.
	Key handler.Config
	// NamePrefix is put before every key to make its execution name
	// (ExecutionName(NamePrefix + key)): set it when another program
	// starts executions of the same function with keys of its own. At
	// most MaxNamePrefix characters of A-Z, a-z, 0-9, '-' and '_'. Keep it
	// stable: a new prefix names every earlier request anew. Defaults to
	// "": the key alone.
	NamePrefix string
	// Concurrency is how many records of a batch are started at once, at
	// least 1; a FIFO message group's records are started one at a time,
	// in order. Defaults to DefaultConcurrency.
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

	// invalid holds what the With* options were given that no field can
	// hold: Validate reports the first.
	invalid []error
}

// Option changes a Config; New applies them in order over the zero Config.
type Option func(*Config)

// WithKey sets where each record's key comes from, with handler's key
// options (handler.WithKeyField, WithKeyFields, WithKeyAttribute,
// WithKeyFunc), applied to Config.Key: the dispatcher reads the key a
// handler with the same options reads.
func WithKey(opts ...handler.Option) Option {
	return func(c *Config) {
		for i, opt := range opts {
			if opt == nil {
				c.invalid = append(c.invalid, configError(fmt.Sprintf("Key[%d]", i), "", idem.ErrNil))
				continue
			}
			opt(&c.Key)
		}
	}
}

// WithNamePrefix sets Config.NamePrefix.
func WithNamePrefix(prefix string) Option {
	return func(c *Config) { c.NamePrefix = prefix }
}

// WithConcurrency sets Config.Concurrency; n must be at least 1.
func WithConcurrency(n int) Option {
	return func(c *Config) {
		if n < 1 {
			c.invalid = append(c.invalid, configError("Concurrency", fmt.Sprint(n), errNotPositive))
			return
		}
		c.Concurrency = n
	}
}

// WithLogger sets Config.Logger.
func WithLogger(l *slog.Logger) Option {
	return func(c *Config) {
		if l == nil {
			c.invalid = append(c.invalid, configError("Logger", "", idem.ErrNil))
			return
		}
		c.Logger = l
	}
}

// WithoutBatchError sets Config.NoBatchError.
func WithoutBatchError() Option {
	return func(c *Config) { c.NoBatchError = true }
}

var errNotPositive = errors.New("must be at least 1")

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) *idem.ConfigError {
	return &idem.ConfigError{Package: "durable", Field: field, Value: value, Err: err}
}

// Validate reports the first setting of c that cannot be safe, as an
// *idem.ConfigError naming its field (a Key setting's error names package
// "handler"), or nil. New calls it.
func (c Config) Validate() error {
	if len(c.invalid) > 0 {
		return c.invalid[0]
	}
	if c.Key.Keyless {
		return configError("Key.Keyless", "true", errors.New("cannot be set: a record without a key has no execution name to guard its start"))
	}
	if err := c.Key.Validate(); err != nil {
		return err
	}
	switch {
	case len(c.NamePrefix) > MaxNamePrefix:
		return configError("NamePrefix", fmt.Sprintf("%q", c.NamePrefix), fmt.Errorf("is longer than %d characters", MaxNamePrefix))
	case c.NamePrefix != "" && !validName(c.NamePrefix):
		return configError("NamePrefix", fmt.Sprintf("%q", c.NamePrefix), errors.New("holds a character other than A-Z, a-z, 0-9, '-' and '_'"))
	case c.Concurrency < 0:
		return configError("Concurrency", fmt.Sprint(c.Concurrency), errNotPositive)
	}
	return nil
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
