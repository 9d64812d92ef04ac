package durable

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
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
	// Concurrency is how many records of a batch are started at once, at
	// least 1; a FIFO batch is started one record at a time, in order.
	// Defaults to DefaultConcurrency.
	Concurrency int
	// Logger receives every record that is not acknowledged and a summary
	// of each batch. Defaults to slog.Default().
	Logger *slog.Logger

	// invalid holds what the With* options were given that no field can
	// hold: Validate reports the first.
	invalid []error
}

// Option changes a Config; New applies them in order over the zero Config.
type Option func(*Config)

// WithRequest sets Config.Request, whole: pass the request.Identity the
// handler, the producer and the command are given, so that each names a
// request by one key. Defaults to the zero request.Identity (the body
// field request.DefaultKeyField, the namespace the function's name).
func WithRequest(id request.Identity) Option {
	id.KeyFields = slices.Clone(id.KeyFields)
	id.FingerprintFields = slices.Clone(id.FingerprintFields)
	return func(c *Config) { c.Request = id }
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

var errNotPositive = errors.New("must be at least 1")

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) *idem.ConfigError {
	return &idem.ConfigError{Package: "durable", Field: field, Value: value, Err: err}
}

// Validate reports the first setting of c that cannot be safe, as an
// *idem.ConfigError naming its field (a Request setting's error names
// package "request"), or nil. New calls it.
func (c Config) Validate() error {
	if len(c.invalid) > 0 {
		return c.invalid[0]
	}
	if err := c.Request.Validate(); err != nil {
		return err
	}
	if c.Concurrency < 0 {
		return configError("Concurrency", fmt.Sprint(c.Concurrency), errNotPositive)
	}
	return nil
}

// defaultNamespace is the namespace of a Config.Request without one, as
// the handler defaults its own: the Lambda function's name; outside
// Lambda, the program's name (its executable's base name), with a
// warning.
func defaultNamespace(logger *slog.Logger) (string, error) {
	if ns := lambdacontext.FunctionName; ns != "" {
		return ns, nil
	}
	ns := ""
	if len(os.Args) > 0 {
		ns = strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe")
	}
	if ns == "" || ns == "." || ns == string(filepath.Separator) {
		return "", &idem.ConfigError{Package: "request", Field: "Namespace", Value: `""`,
			Err: errors.New("must be set: AWS_LAMBDA_FUNCTION_NAME is unset and the program has no name")}
	}
	ns = strings.ToValidUTF8(ns, "")
	logger.Warn("idemq: no namespace (AWS_LAMBDA_FUNCTION_NAME is unset); using the program's name. "+
		"Executions are named after keys in it: pass durable.WithRequest with the handler's namespace", "namespace", ns)
	return ns, nil
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
