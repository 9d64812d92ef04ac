package worker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
)

// Config is what New takes besides the settings: how it logs, reaches
// AWS and opens stores, and what it adds to the handler. The zero Config
// takes every default.
type Config struct {
	// Logger receives the handler's and the consumer's logs and the
	// start-up warnings. Defaults to JSON lines on stdout, as Lambda's
	// log format expects.
	Logger *slog.Logger
	// AWS returns the AWS configuration of every AWS client New makes
	// (DynamoDB, SQS, S3); it is called at most once, and only when one is
	// needed. Defaults to the SDK's default configuration
	// (config.LoadDefaultConfig).
	AWS func(context.Context) (aws.Config, error)
	// Stores are the openers of the stores New opens besides DynamoDB and
	// memory, which it always can: pgenv.Opener() and redisenv.Opener().
	// A store the settings name that no opener opens is refused, naming
	// the package that would. Defaults to none.
	Stores []idemqenv.Opener
	// HandlerOptions are given to handler.New after the ones the settings
	// make: hooks, a cache, a deadline reserve. One that sets what a
	// variable sets wins over it, and one the settings contradict (a key
	// function with IDEMQ_KEY_FIELD set) is refused. Defaults to none.
	HandlerOptions []handler.Option
	// Tracing makes what IDEMQ_TRACING asks for, given its value ("otel"
	// or "xray"). Defaults to nil: New refuses IDEMQ_TRACING, which it
	// cannot honour.
	Tracing func(ctx context.Context, mode string) (Tracing, error)
	// EMF receives the EMF lines when IDEMQ_EMF_NAMESPACE is set. Defaults
	// to stdout, which Lambda sends to CloudWatch Logs.
	EMF io.Writer
}

// Tracing is how a Worker traces (IDEMQ_TRACING): a handler option that
// records spans (idemqotel.WithTracing), and a wrap of the finished
// handler (to flush the spans of each batch before Lambda freezes the
// function). Either may be nil.
type Tracing struct {
	Option handler.Option
	Wrap   func(handler.Handler) handler.Handler
}

// Option changes a Config.
type Option func(*Config)

// WithLogger sets Config.Logger.
func WithLogger(l *slog.Logger) Option { return func(c *Config) { c.Logger = l } }

// WithAWS sets Config.AWS.
func WithAWS(load func(context.Context) (aws.Config, error)) Option {
	return func(c *Config) { c.AWS = load }
}

// WithAWSConfig sets Config.AWS to return cfg: one configuration shared
// with the caller's own clients.
func WithAWSConfig(cfg aws.Config) Option {
	return WithAWS(func(context.Context) (aws.Config, error) { return cfg, nil })
}

// WithStores adds openers to Config.Stores.
func WithStores(openers ...idemqenv.Opener) Option {
	return func(c *Config) { c.Stores = append(c.Stores, openers...) }
}

// WithHandlerOptions adds options to Config.HandlerOptions.
func WithHandlerOptions(opts ...handler.Option) Option {
	return func(c *Config) { c.HandlerOptions = append(c.HandlerOptions, opts...) }
}

// WithTracing sets Config.Tracing.
func WithTracing(f func(ctx context.Context, mode string) (Tracing, error)) Option {
	return func(c *Config) { c.Tracing = f }
}

// WithEMF sets Config.EMF.
func WithEMF(w io.Writer) Option { return func(c *Config) { c.EMF = w } }

// resolve applies opts over the zero Config and fills in the defaults.
func resolve(opts []Option) (Config, error) {
	var c Config
	for i, o := range opts {
		if o == nil {
			return Config{}, &idem.ConfigError{Package: "worker", Field: fmt.Sprintf("options[%d]", i), Err: idem.ErrNil}
		}
		o(&c)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewJSONHandler(os.Stdout, nil))
	}
	if c.AWS == nil {
		c.AWS = func(ctx context.Context) (aws.Config, error) {
			cfg, err := awsconfig.LoadDefaultConfig(ctx)
			if err != nil {
				return aws.Config{}, fmt.Errorf("AWS configuration: %w", err)
			}
			return cfg, nil
		}
	}
	if c.EMF == nil {
		c.EMF = os.Stdout
	}
	return c, nil
}
