package worker

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/stores"
	"github.com/idemq/idemq/idemqenv"
)

// Config is what New takes besides the settings: how it logs, reaches
// AWS and opens stores, and what it adds to the handler. It is declared
// and defaulted here as every idemq package does it (docs/options.md): a
// zero field is its default, the options only set fields, and WithConfig
// passes a Config whole. The zero Config takes every default.
type Config struct {
	// Logger receives the handler's and the consumer's logs and the
	// start-up warnings. Defaults to JSON lines on stdout, as Lambda's
	// log format expects.
	Logger *slog.Logger
	// AWS returns the AWS configuration of every AWS client made (DynamoDB,
	// SQS, S3, Lambda: each made once, from the settings' endpoints); it
	// is called at most once, and only when a client is needed. Defaults
	// to the SDK's default configuration (config.LoadDefaultConfig).
	AWS func(context.Context) (aws.Config, error)
	// Stores are the openers of the stores New opens besides DynamoDB and
	// memory, which it always can: pgenv.Opener() and redisenv.Opener().
	// A store the settings name that no opener opens is refused, naming
	// the package that would. Defaults to none.
	Stores []stores.Opener
	// HandlerOptions are given to handler.New after the ones the settings
	// make: hooks, a cache, a deadline reserve. One that sets what a
	// variable sets wins over it, but for the request's identity
	// (handler.WithRequest): the identity given in code and the
	// environment's (IDEMQ_NAMESPACE, IDEMQ_KEY_FIELD, ...) are joined
	// (request.Identity.Merge), each field from the one that sets it, and
	// a field both set otherwise is refused at start, naming both. Worker
	// mode only. Defaults to none.
	HandlerOptions []handler.Option
	// FrontDoorOptions are given to frontdoor.New after the ones the
	// settings make (NewFrontDoor): its Scope above all, which
	// IDEMQ_FRONTDOOR_SCOPE=iam or iam-session requires, as only the code
	// serving the front door can tell a request's caller. Front-door mode
	// only. Defaults to none.
	FrontDoorOptions []frontdoor.Option
	// Tracing makes what IDEMQ_TRACING asks for, given its value ("otel"
	// or "xray"). Defaults to nil: New refuses IDEMQ_TRACING, which it
	// cannot honour.
	Tracing func(ctx context.Context, mode string) (Tracing, error)
	// EMF receives the EMF lines when IDEMQ_EMF_NAMESPACE is set. Defaults
	// to stdout, which Lambda sends to CloudWatch Logs.
	EMF io.Writer
	// Lambda lists the function's event source mappings, which New reads
	// once on Lambda (not in consumer mode) to log an error for a mapping
	// from an SQS queue without ReportBatchItemFailures; what it cannot
	// read it logs at INFO, and goes on. Defaults to a Lambda client of
	// Config.AWS's configuration.
	Lambda Mappings
	// Check checks the settings your program reads besides idemq's (a
	// variable of your own, or the reference worker's IDEMQ_PROVIDER_URL)
	// before anything is opened; its error is reported with every other
	// bad setting, so that one start names them all. Defaults to none.
	Check func(idemqenv.Settings) error

	anyMode bool // wired by FromEnv, whichever mode the environment chose
}

// anyMode marks a Worker FromEnv wires.
func anyMode(c *Config) { c.anyMode = true }

// Tracing is how a Worker traces (IDEMQ_TRACING): a handler option that
// records spans (idemqotel.WithTracing), and a wrap of the finished
// handler (to flush the spans of each batch before Lambda freezes the
// function). Either may be nil.
type Tracing struct {
	Option handler.Option
	Wrap   func(handler.Handler) handler.Handler
}

// Option changes a Config; New and FromEnv apply them in order over the
// zero Config. An option only sets a field.
type Option func(*Config)

// WithConfig sets the whole Config: options after it change its fields,
// and options before it are overwritten. Defaults to the zero Config,
// every field its default.
func WithConfig(cfg Config) Option {
	cfg.Stores = slices.Clone(cfg.Stores)
	cfg.HandlerOptions = slices.Clone(cfg.HandlerOptions)
	cfg.FrontDoorOptions = slices.Clone(cfg.FrontDoorOptions)
	return func(c *Config) { *c = cfg }
}

// WithLogger sets Config.Logger. Defaults to JSON lines on stdout.
func WithLogger(l *slog.Logger) Option { return func(c *Config) { c.Logger = l } }

// WithAWS sets Config.AWS, how the AWS configuration is loaded. Defaults
// to the SDK's default configuration.
func WithAWS(load func(context.Context) (aws.Config, error)) Option {
	return func(c *Config) { c.AWS = load }
}

// WithAWSConfig sets Config.AWS to return cfg: one configuration shared
// with the caller's own clients. Defaults to the SDK's default
// configuration.
func WithAWSConfig(cfg aws.Config) Option {
	return WithAWS(func(context.Context) (aws.Config, error) { return cfg, nil })
}

// WithStores adds openers to Config.Stores. Defaults to none: DynamoDB
// and memory only.
func WithStores(openers ...stores.Opener) Option {
	openers = slices.Clone(openers)
	return func(c *Config) { c.Stores = append(c.Stores, openers...) }
}

// WithHandlerOptions adds options to Config.HandlerOptions. Defaults to
// none.
func WithHandlerOptions(opts ...handler.Option) Option {
	opts = slices.Clone(opts)
	return func(c *Config) { c.HandlerOptions = append(c.HandlerOptions, opts...) }
}

// WithFrontDoorOptions adds options to Config.FrontDoorOptions. Defaults
// to none.
func WithFrontDoorOptions(opts ...frontdoor.Option) Option {
	opts = slices.Clone(opts)
	return func(c *Config) { c.FrontDoorOptions = append(c.FrontDoorOptions, opts...) }
}

// WithTracing sets Config.Tracing. Defaults to nil: IDEMQ_TRACING is
// refused.
func WithTracing(f func(ctx context.Context, mode string) (Tracing, error)) Option {
	return func(c *Config) { c.Tracing = f }
}

// WithEMF sets Config.EMF, where the EMF lines go. Defaults to stdout.
func WithEMF(w io.Writer) Option { return func(c *Config) { c.EMF = w } }

// WithLambda sets Config.Lambda, the client the start-up check lists the
// function's event source mappings with. Defaults to a Lambda client of
// Config.AWS's configuration.
func WithLambda(client Mappings) Option { return func(c *Config) { c.Lambda = client } }

// Validate reports every setting of c that cannot work, joined, or nil:
// every value of a Config works, so it is nil. It is the resolve step New
// runs, without its result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve fills in c's defaults: the one place they are written.
func (c Config) resolve() (Config, error) {
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
