package worker

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/sdkhttp"
)

// Worker is a handler around a function of your own, wired from the
// IDEMQ_* settings, with what it runs on.
type Worker struct {
	// Settings are the settings it was wired from.
	Settings idemqenv.Settings
	// Handler runs each batch: what lambda.Start takes, and what Run
	// serves.
	Handler handler.Handler
	// Store is the store of records (IDEMQ_STORE).
	Store idemqenv.Records
	// Blobs keeps the results too large for a record (IDEMQ_BLOB_BUCKET);
	// nil without a bucket.
	Blobs idem.Blobs
	// Consumer receives from IDEMQ_CONSUMER_QUEUE_URL, running Handler;
	// nil on Lambda.
	Consumer *consumer.Consumer

	cfg        Config
	closeStore func()
	closeOnce  sync.Once
}

// FromEnv reads the environment through getenv (os.Getenv) with
// idemqenv.Read and wires a Worker around fn from it (New). Its error
// names every bad or missing variable at once.
func FromEnv(ctx context.Context, getenv func(string) string, fn handler.Func, opts ...Option) (*Worker, error) {
	s, err := idemqenv.Read(getenv)
	if err != nil {
		return nil, fmt.Errorf("bad configuration:\n%w", err)
	}
	return New(ctx, s, fn, opts...)
}

// New wires a Worker around fn from s, settings of worker mode as
// idemqenv.Read returns them, and checks what it opens:
//
//   - the namespace: outside Lambda, where the handler has no function's
//     name to default it to, IDEMQ_NAMESPACE is required;
//   - the store: opened (Config.Stores), and with PostgreSQL the table's
//     shape read from the catalog (pgstore.Store.Check), which the
//     worker never creates;
//   - the settings the library refuses (handler.New, consumer.New,
//     s3blob.New), each named after the variable that set it
//     (idemqenv.SettingError).
//
// It logs a warning for a setting that works but may cost a second
// execution: no namespace on Lambda (the function's name, which a
// replaced or renamed function does not keep), a record expiry that
// covers the queue but not a redrive from its dead-letter queue; and for
// the memory store. On Lambda (not in consumer mode) it reads the
// function's event source mappings once, within 2 s (Config.Lambda), and
// logs an error for a mapping from an SQS queue without
// ReportBatchItemFailures, whose partial batch responses Lambda would
// ignore; what it cannot read it logs at INFO, and starts all the same.
// No error holds the store's password. Close the Worker when done.
func New(ctx context.Context, s idemqenv.Settings, fn handler.Func, opts ...Option) (*Worker, error) {
	var errs []error
	if fn == nil {
		errs = append(errs, &idem.ConfigError{Package: "worker", Field: "fn", Err: idem.ErrNil})
	}
	cfg, optErr := idem.ApplyOptions("worker", opts)
	cfg, err := cfg.resolve()
	errs = append(errs, optErr, err)
	if s.Program != idemqenv.Worker {
		errs = append(errs, fmt.Errorf("worker: %s=%s: package worker wires worker mode only (the front door is frontdoor.New, the dispatcher durable.New)", idemqenv.Mode, s.Program))
	}
	if s.Request.Namespace == "" && lambdacontext.FunctionName == "" {
		errs = append(errs, fmt.Errorf("%s is required outside Lambda (AWS_LAMBDA_FUNCTION_NAME is unset): the namespace every key starts with", idemqenv.Namespace))
	}
	if s.Tracing != "" && cfg.Tracing == nil {
		errs = append(errs, fmt.Errorf("%s=%s: this function cannot trace: give worker.WithTracing a tracer, or unset %s", idemqenv.Tracing, s.Tracing, idemqenv.Tracing))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	w := &Worker{Settings: s, cfg: cfg, closeStore: func() {}}
	if err := w.wire(ctx, fn); err != nil {
		w.Close()
		return nil, idemqenv.Redact(err, s.Store.URL)
	}
	return w, nil
}

// wire opens what w's settings name and makes its handler.
func (w *Worker) wire(ctx context.Context, fn handler.Func) error {
	s, cfg := w.Settings, w.cfg
	warnings(s, cfg.Logger)
	conns := s.Connections() // one per record at once, in every batch at once
	awsCfg := onceAWS(cfg.AWS)

	var err error
	if w.Store, w.closeStore, err = OpenStore(ctx, s.Store, idemqenv.OpenConfig{AWS: awsCfg, Connections: conns}, cfg.Stores...); err != nil {
		return err
	}
	opts := []handler.Option{handler.WithLogger(cfg.Logger), handler.WithRequest(s.Request),
		handler.WithIdem(idem.WithExpiry(s.RecordExpiry), idem.WithLease(s.Lease), idem.WithHeartbeat(s.Heartbeat), idem.WithClockSkew(s.ClockSkew),
			idem.WithCompressAbove(s.CompressAbove))}
	if s.Concurrency != 0 {
		opts = append(opts, handler.WithConcurrency(s.Concurrency))
	}
	if s.Blobs.Bucket != "" {
		c, err := awsCfg(ctx)
		if err != nil {
			return err
		}
		if w.Blobs, err = OpenBlobs(c, s.Blobs, conns); err != nil {
			return idemqenv.SettingError(err)
		}
		opts = append(opts, handler.WithIdem(idem.WithBlobs(w.Blobs), idem.WithOffloadAbove(s.Blobs.OffloadAbove)))
	}
	consuming := s.Consumer.QueueURL != ""
	var sqsClient *sqs.Client
	if s.Backoff || consuming {
		c, err := awsCfg(ctx)
		if err != nil {
			return err
		}
		sqsClient = sqs.NewFromConfig(c, func(o *sqs.Options) {
			// Every in-progress record of a batch may give its message
			// back at once: keep a connection for each.
			o.HTTPClient = sdkhttp.KeepConnections(o.HTTPClient, conns)
			if s.SQSEndpoint != "" {
				o.BaseEndpoint = aws.String(s.SQSEndpoint)
			}
		})
	}
	switch {
	case !s.Backoff:
	case consuming:
		// A message given back is no longer kept hidden by the consumer's
		// extensions (consumer.Backoff).
		opts = append(opts, handler.WithBackoff(consumer.Backoff(sqsClient)), handler.WithQueueURL(s.Consumer.QueueURL))
	case s.QueueURL != "":
		opts = append(opts, handler.WithBackoff(sqsClient), handler.WithQueueURL(s.QueueURL))
	default:
		opts = append(opts, handler.WithBackoff(sqsClient))
	}
	if s.EMFNamespace != "" {
		opts = append(opts, handler.WithEMF(cfg.EMF, s.EMFNamespace))
	}
	var tr Tracing
	if s.Tracing != "" {
		if tr, err = cfg.Tracing(ctx, s.Tracing); err != nil {
			return fmt.Errorf("%s=%s: %w", idemqenv.Tracing, s.Tracing, err)
		}
		if tr.Option != nil {
			opts = append(opts, tr.Option)
		}
	}
	if function := lambdacontext.FunctionName; function != "" && !consuming {
		if lacking := checkMappings(ctx, lambdaClient(ctx, cfg, awsCfg), function, cfg.Logger); len(lacking) > 0 {
			opts = append(opts, func(c *handler.Config) { c.WholeBatchQueues = lacking })
		}
	}
	// A request.Identity given in code (handler.WithRequest among the
	// handler options) may add what no variable carries (a KeyFunc,
	// NoFingerprint) but never contradict the environment, which the
	// command and the CDK constructs read too.
	inCode := handler.Config{Request: s.Request}
	for _, opt := range cfg.HandlerOptions {
		if opt != nil {
			opt(&inCode)
		}
	}
	id, err := inCode.Request.Merge(s.Request)
	if err != nil {
		return fmt.Errorf("worker: the request given in code (WithHandlerOptions) contradicts the environment's: %w", err)
	}
	opts = append(append(opts, cfg.HandlerOptions...), handler.WithRequest(id))
	if w.Handler, err = handler.New(w.Store, fn, opts...); err != nil {
		return idemqenv.SettingError(err)
	}
	if tr.Wrap != nil {
		w.Handler = tr.Wrap(w.Handler)
	}
	if consuming {
		if w.Consumer, err = consumer.New(sqsClient, s.Consumer.QueueURL, w.Handler, append(s.Consumer.Options(), consumer.WithLogger(cfg.Logger))...); err != nil {
			return idemqenv.SettingError(err)
		}
	}
	return nil
}

// lambdaClient is Config.Lambda, or a Lambda client of the AWS
// configuration; when that cannot be loaded, a client whose every request
// fails with the reason, which checkMappings logs.
func lambdaClient(ctx context.Context, cfg Config, awsCfg func(context.Context) (aws.Config, error)) Mappings {
	if cfg.Lambda != nil {
		return cfg.Lambda
	}
	c, err := awsCfg(ctx)
	if err != nil {
		return unreadable{err}
	}
	return lambda.NewFromConfig(c)
}

// unreadable answers every request with err.
type unreadable struct{ err error }

func (u unreadable) ListEventSourceMappings(context.Context, *lambda.ListEventSourceMappingsInput, ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error) {
	return nil, u.err
}

// Close closes the store's connections. It is safe to call more than
// once.
func (w *Worker) Close() {
	w.closeOnce.Do(func() {
		if w.closeStore != nil {
			w.closeStore()
		}
	})
}

// onceAWS calls load at most once, when a client first needs it.
func onceAWS(load func(context.Context) (aws.Config, error)) func(context.Context) (aws.Config, error) {
	var (
		once sync.Once
		cfg  aws.Config
		err  error
	)
	return func(ctx context.Context) (aws.Config, error) {
		once.Do(func() { cfg, err = load(ctx) })
		return cfg, err
	}
}
