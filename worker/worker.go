package worker

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idemqenv"
	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/request"
)

// newHandler makes the handler around the function of your own, over the
// store New opened, with the options the settings make.
type newHandler func(store idem.Store, opts ...handler.Option) (handler.Handler, error)

// New wires a Worker around fn from s, settings of worker mode as
// idemqenv.Read returns them. First, before any request, it checks every
// setting at once, each named after the variable that set it:
//
//   - the namespace: outside Lambda, where the handler has no function's
//     name to default it to, IDEMQ_NAMESPACE is required;
//   - the request's identity given in code (Config.HandlerOptions)
//     against the environment's: joined, and a field both set otherwise
//     refused;
//   - the settings the handler, the claim, the consumer, the store and
//     the bucket refuse (their Validate, the store's and the bucket's
//     New, which make no request).
//
// Then it reads what it opened: with PostgreSQL the table's shape from
// the catalog (pgstore.Store.Check), which the worker never creates. It
// logs a warning for a setting that works but may cost a second
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
	return newWorker(ctx, s, nil, fn == nil, func(store idem.Store, o ...handler.Option) (handler.Handler, error) {
		return handler.New(store, fn, o...)
	}, opts)
}

// newWorker is New with the handler made by build, after readErr (what
// Read refused, reported with every other bad setting); nilFn says the
// function of your own is nil.
func newWorker(ctx context.Context, s idemqenv.Settings, readErr error, nilFn bool, build newHandler, opts []Option) (*Worker, error) {
	var errs []error
	if nilFn {
		errs = append(errs, &idem.ConfigError{Package: "worker", Field: "fn", Err: optkit.ErrNil})
	}
	w, more := begin(s, idemqenv.Worker, opts)
	errs = append(errs, more...)
	var id request.Identity
	if s.Program == idemqenv.Worker {
		var checks []error
		id, checks = w.checkWorker()
		errs = append(errs, checks...)
	}
	if err := w.open(ctx, readErr, errs); err != nil {
		return nil, err
	}
	if err := w.wireWorker(ctx, build, id); err != nil {
		w.Close()
		return nil, w.failed(err)
	}
	return w, nil
}

// begin applies opts and checks what every program checks: the options,
// and that s is program p's.
func begin(s idemqenv.Settings, p idemqenv.Program, opts []Option) (*Worker, []error) {
	cfg, optErr := optkit.ApplyOptions("worker", opts)
	cfg, err := cfg.resolve()
	errs := []error{optErr, err}
	if cfg.Check != nil {
		errs = append(errs, cfg.Check(s))
	}
	if cfg.anyMode {
		// FromEnv: one program for whichever mode the environment
		// chooses, given the options of every mode.
		if p != idemqenv.Worker {
			cfg.HandlerOptions, cfg.Tracing = nil, nil
		}
		if p != idemqenv.FrontDoor {
			cfg.FrontDoorOptions = nil
		}
	}
	if s.Program != p {
		errs = append(errs, fmt.Errorf("worker: IDEMQ_MODE=%s: %s wires %s mode only (worker mode is worker.New's, the front door worker.NewFrontDoor's, the dispatcher worker.NewDispatcher's)", s.Program, constructors[p], p))
	}
	if p != idemqenv.Worker {
		if len(cfg.HandlerOptions) > 0 {
			errs = append(errs, fmt.Errorf("worker: Config.HandlerOptions are set but %s mode has no handler of idemq's: they are worker mode's", p))
		}
		if cfg.Tracing != nil {
			errs = append(errs, fmt.Errorf("worker: Config.Tracing is set but %s mode does not trace: it is worker mode's", p))
		}
	}
	if p != idemqenv.FrontDoor && len(cfg.FrontDoorOptions) > 0 {
		errs = append(errs, fmt.Errorf("worker: Config.FrontDoorOptions are set in %s mode: they are front-door mode's", p))
	}
	w := &Worker{Settings: s, Connections: connections(s), cfg: cfg, clients: newClients(s, cfg.AWS), closeStore: func() {}}
	return w, errs
}

// constructors are the functions that wire each program.
var constructors = map[idemqenv.Program]string{idemqenv.Worker: "worker.New", idemqenv.FrontDoor: "worker.NewFrontDoor", idemqenv.Dispatch: "worker.NewDispatcher"}

// checkWorker checks, without a request, what worker mode's parts would
// refuse, and returns the request's identity the handler is to take.
func (w *Worker) checkWorker() (request.Identity, []error) {
	s, cfg := w.Settings, w.cfg
	var errs []error
	if s.Request.Namespace == "" && lambdacontext.FunctionName == "" {
		errs = append(errs, fmt.Errorf("IDEMQ_NAMESPACE is required outside Lambda (AWS_LAMBDA_FUNCTION_NAME is unset): the namespace every key starts with"))
	}
	if s.Tracing != "" && cfg.Tracing == nil {
		errs = append(errs, fmt.Errorf("IDEMQ_TRACING=%s: this function cannot trace: give worker.WithTracing a tracer, or unset IDEMQ_TRACING", s.Tracing))
	}
	consuming := s.Consumer.QueueURL != ""
	if consuming && s.Heartbeat > consumer.DefaultShortLease/2 && s.Lease == 0 {
		// A claim without a lease of its own takes the consumer's default
		// lease, renewed by the heartbeat: a beat above half of it the
		// library would silently cut.
		errs = append(errs, fmt.Errorf("%s=%s is set without %s: in consumer mode a claim without a lease of its own takes the consumer's default lease of %s, renewed at most every %s (half of it), "+
			"and the beat would be cut to that; set %s at most %s, or set %s (at least twice the beat) too",
			"IDEMQ_HEARTBEAT", s.Heartbeat, "IDEMQ_LEASE", consumer.DefaultShortLease, consumer.DefaultShortLease/2, "IDEMQ_HEARTBEAT", consumer.DefaultShortLease/2, "IDEMQ_LEASE"))
	}
	id, err := w.identity()
	if err != nil {
		errs = append(errs, err)
		id = s.Request // checked below as the environment gives it
	}
	backoff := handler.VisibilityChanger(nil) // the client is made later; its setting is checked by the handler's Config
	hc, _ := optkit.ApplyOptions("handler", append(append(w.handlerOptions(backoff, nil), cfg.HandlerOptions...), handler.WithRequest(id)))
	errs = append(errs, named(hc.Validate()))
	if consuming {
		cc, _ := optkit.ApplyOptions("consumer", w.consumerOptions())
		errs = append(errs, named(cc.Validate()))
	}
	return id, errs
}

// wireWorker makes worker mode's handler, and in consumer mode its
// consumer, over what open opened.
func (w *Worker) wireWorker(ctx context.Context, build newHandler, id request.Identity) error {
	s, cfg := w.Settings, w.cfg
	warnings(s, cfg.Logger)
	consuming := s.Consumer.QueueURL != ""
	var backoff handler.VisibilityChanger
	if s.Backoff || consuming {
		client, err := w.clients.SQS(ctx)
		if err != nil {
			return err
		}
		if s.Backoff {
			backoff = client
			if consuming {
				// A message given back is no longer kept hidden by the
				// consumer's extensions (consumer.Backoff).
				backoff = consumer.Backoff(client)
			}
		}
	}
	opts := w.handlerOptions(backoff, w.Blobs)
	var tr Tracing
	if s.Tracing != "" {
		var err error
		if tr, err = cfg.Tracing(ctx, s.Tracing); err != nil {
			return fmt.Errorf("IDEMQ_TRACING=%s: %w", s.Tracing, err)
		}
		if tr.Option != nil {
			opts = append(opts, tr.Option)
		}
	}
	if function := lambdacontext.FunctionName; function != "" && !consuming {
		if lacking := checkMappings(ctx, w.mappings(ctx), function, cfg.Logger); len(lacking) > 0 {
			opts = append(opts, func(c *handler.Config) { c.WholeBatchQueues = lacking })
		}
	}
	opts = append(append(opts, cfg.HandlerOptions...), handler.WithRequest(id))
	var err error
	if w.Handler, err = build(w.Store, opts...); err != nil {
		return err
	}
	if tr.Wrap != nil {
		w.Handler = tr.Wrap(w.Handler)
	}
	if consuming {
		client, err := w.clients.SQS(ctx)
		if err != nil {
			return err
		}
		if w.Consumer, err = consumer.New(client, s.Consumer.QueueURL, w.Handler, w.consumerOptions()...); err != nil {
			return err
		}
	}
	return nil
}

// mappings is Config.Lambda, or the Lambda client; when the AWS
// configuration cannot be loaded, a client whose every request fails with
// the reason, which checkMappings logs.
func (w *Worker) mappings(ctx context.Context) Mappings {
	if w.cfg.Lambda != nil {
		return w.cfg.Lambda
	}
	c, err := w.clients.Lambda(ctx)
	if err != nil {
		return unreadable{err}
	}
	return c
}

// unreadable answers every request with err.
type unreadable struct{ err error }

func (u unreadable) ListEventSourceMappings(context.Context, *lambda.ListEventSourceMappingsInput, ...func(*lambda.Options)) (*lambda.ListEventSourceMappingsOutput, error) {
	return nil, u.err
}
