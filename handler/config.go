package handler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/request"
)

// Defaults of Config's fields.
const (
	// DefaultConcurrency is how many records of a batch run at once: every
	// record of a batch of up to 100 (the SQS event source sends 10 unless
	// told otherwise), and 100 at a time of a larger one. Powertools runs
	// every record of a batch at once; the bound keeps a batch of 10,000
	// from opening 10,000 connections. The work is mostly waiting on the
	// network (the store, a model provider), so it is not tied to the
	// number of CPUs. Give the DynamoDB client as many idle connections
	// (dynamostore.KeepConnections); lower it with WithConcurrency to stay
	// within a provider's rate limit.
	DefaultConcurrency = 100
	// defaultDeadlineReserve is the time left before the invocation's
	// deadline under which records are no longer started. It is capped at
	// half the time the invocation had when the batch began, so a function
	// with a short timeout still runs its records.
	defaultDeadlineReserve = 5 * time.Second
)

// Config is how a Handler turns a batch into claims and a response. Every
// setting is declared, defaulted and checked here, once, as every idemq
// package does it (docs/options.md): a zero field is its default, a
// negative number or duration is refused unless the field says it turns
// something off, and the options (Option) only set fields. New applies the
// options over the zero Config and resolves it once, filling in the
// defaults and refusing every setting that cannot be safe at once;
// Validate is that step without its result. A Config made whole is passed
// with WithConfig, and options after it change its fields:
//
//	h, err := handler.New(store, fn, handler.WithConfig(cfg), handler.WithLogger(logger))
type Config struct {
	// Request is who each record's request is: the namespace every key
	// starts with, where the key comes from (a body field, several, a
	// message attribute or a function), and the fields its payload is
	// checked by; one value shared with the producer, the front door, the
	// dispatcher and the command (WithRequest). It is checked by its own
	// package (request.Identity.Validate: its errors name package
	// "request"). Its Namespace defaults to request.DefaultNamespace: the
	// Lambda function's name; outside Lambda, the program's name, with a
	// warning. Defaults to the zero request.Identity: the body field
	// request.DefaultKeyField, the whole body as the fingerprint.
	Request request.Identity
	// Keyless runs records that carry no key without idempotency (see
	// WithKeyless). Defaults to false: such a record is a batch item
	// failure.
	Keyless bool

	// Concurrency is how many records of a batch run at once; a negative
	// value is refused. Defaults to DefaultConcurrency.
	Concurrency int
	// DeadlineReserve is the deadline guard: a record not yet started when
	// less than it is left before the invocation's deadline is reported as
	// a failure without starting (ErrDeadline), so the batch answers
	// before Lambda's timeout (which would redeliver every record). The
	// records that run get contexts that end DeadlineReserve/2 before the
	// deadline, leaving time to release their claims. A negative value
	// turns the guard off: every record is started, however near the
	// deadline, and runs under the invocation's context. Defaults to
	// defaultDeadlineReserve, capped at half the time the invocation had
	// when the batch began.
	DeadlineReserve time.Duration
	// FIFOGroupIsolation narrows what a failure stops on a FIFO queue to
	// the failed record's message group: later records of that group are
	// reported as failures without running, while other groups go on.
	// Defaults to false: as AWS documents for FIFO, every record after the
	// first failure is reported as a failure.
	FIFOGroupIsolation bool

	// Idem is how each record's key is claimed, extended and completed:
	// the lease, the record expiry, the heartbeat, the clock, compression
	// and blobs, declared, defaulted and checked by idem.Config (its
	// errors name package "idem"). Its clock also times the deadline guard
	// and the back-off. Defaults to idem.Config's defaults.
	Idem idem.Config

	// OnReplay is called with the stored result of every record that is
	// not executed because its key was done before (by an earlier
	// delivery, or by a copy in the same batch); an error fails the
	// record, so the message comes back and the hook runs again (see
	// WithReplayHook). Defaults to none.
	OnReplay func(ctx context.Context, msg events.SQSMessage, result []byte) error
	// replayType is the result type a typed replay hook decodes into
	// (WithTypedReplayHook), which NewTyped holds against its function's;
	// nil for an untyped hook or none.
	replayType reflect.Type
	// OnFailure is called for every record reported as a batch item
	// failure, after the batch, in input order; err is a *RecordError
	// naming the message (see WithFailureHook). Defaults to none: failures
	// are logged.
	OnFailure func(ctx context.Context, msg events.SQSMessage, err error)

	// CacheEntries and CacheBytes bound the in-memory cache of completed
	// results: the results of up to CacheEntries completed keys, and at
	// most CacheBytes of results, kept across the invocations of a warm
	// container, least recently used first out, so a duplicate delivered
	// there costs no store request. Both positive, or both 0. An entry
	// lasts no longer than the record it copies, and the payload
	// fingerprint is still checked. Default to 0: off.
	CacheEntries, CacheBytes int

	// Backoff is the SQS client that sets the visibility timeout of each
	// record found in progress on another worker (see WithBackoff).
	// Defaults to nil: off.
	Backoff VisibilityChanger
	// QueueURL is the queue URL the back-off (WithBackoff) uses. Defaults
	// to the URL derived from each record's event source ARN (QueueURL).
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

	// NoBatchError keeps the invocation succeeding when every message of
	// a batch comes back: the response lists them all, and the handler
	// returns no error, so the function's Errors metric does not count the
	// batch; Lambda brings back the same messages either way. Defaults to
	// false: a
	// batch none of whose messages is acknowledged, one record at least
	// having failed (not only found in progress, or not started), fails
	// the invocation with ErrBatchFailed, as Powertools does by default.
	// Lambda then counts it in the function's Errors metric, so error
	// alarms see a store or a provider that fails everything, backs off
	// the event source's concurrency, and brings the whole batch back:
	// the messages the response lists, no other.
	NoBatchError bool

	// WholeBatchQueues are the ARNs of queues whose event source mapping
	// lacks ReportBatchItemFailures, so that Lambda ignores the partial
	// batch response and deletes every message of a batch whose
	// invocation succeeds. A batch from one of them with a record not
	// acknowledged fails the invocation instead: the whole batch comes
	// back, its acknowledged records replay from the store, and nothing
	// unsettled is deleted. The worker fills it from its start-up read of
	// the function's mappings. Defaults to none: every mapping reports
	// batch item failures.
	WholeBatchQueues []string
}

// configError is an *idem.ConfigError of this package.
func configError(field, value string, err error) *idem.ConfigError {
	return &idem.ConfigError{Package: "handler", Field: field, Value: value, Err: err}
}

// Validate reports every setting of c that cannot be safe, each an
// *idem.ConfigError naming its field (an idem.Config field's names package
// "idem", a request.Identity field's package "request"), joined (see
// idem.ConfigErrors); nil when there is none. It is the resolve step New
// runs, without its result.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// settings is a Config resolved: what a batch reads, every default filled
// in.
type settings struct {
	namespace string
	// programNamespace is set when the namespace is the program's name,
	// for want of a function's: the constructor warns.
	programNamespace bool
	keyName          string          // for logs: where the key comes from
	reader           *request.Reader // each record's key and fingerprint
	keyless          bool
	concurrency      int
	reserve          time.Duration
	reserveSet       bool
	fifoGroupOnly    bool
	claims           idem.Config // Config.Idem, resolved
	onReplay         func(context.Context, events.SQSMessage, []byte) error
	onFailure        func(context.Context, events.SQSMessage, error)
	cacheEntries     int
	cacheBytes       int
	backoff          VisibilityChanger
	queueURL         string
	logger           *slog.Logger
	emf              io.Writer
	emfNamespace     string
	tracer           Tracer          // nil: off
	batchError       bool            // !Config.NoBatchError
	wholeBatch       map[string]bool // Config.WholeBatchQueues
}

// resolve fills in c's defaults and turns it into the settings a batch
// reads, or returns an error joining every setting that cannot be safe.
// It is the one place defaults are written and values checked; it logs
// nothing and changes nothing.
func (c Config) resolve() (settings, error) {
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
		batchError:    !c.NoBatchError,
	}
	for _, arn := range c.WholeBatchQueues {
		if set.wholeBatch == nil {
			set.wholeBatch = make(map[string]bool)
		}
		set.wholeBatch[arn] = true
	}
	var errs []error
	bad := func(field, value string, reason string) {
		errs = append(errs, configError(field, value, errors.New(reason)))
	}
	requestErr := c.Request.Validate()
	errs = append(errs, requestErr)
	if c.Concurrency < 0 {
		bad("Concurrency", fmt.Sprint(c.Concurrency), "must not be negative (0 is DefaultConcurrency)")
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
	switch {
	case c.CacheEntries < 0 || (c.CacheEntries == 0 && c.CacheBytes != 0):
		bad("CacheEntries", fmt.Sprint(c.CacheEntries), "must be at least 1 with CacheBytes, or both 0 (off)")
	case c.CacheBytes < 0 || (c.CacheBytes == 0 && c.CacheEntries != 0):
		bad("CacheBytes", fmt.Sprint(c.CacheBytes), "must be at least 1 with CacheEntries, or both 0 (off)")
	}
	switch {
	case c.EMF != nil && c.EMFNamespace == "":
		bad("EMFNamespace", `""`, "must be set with EMF")
	case c.EMF == nil && c.EMFNamespace != "":
		bad("EMF", "", "is nil, with EMFNamespace set")
	}
	var err error
	if set.claims, err = idem.NewConfig(idem.WithConfig(c.Idem)); err != nil {
		errs = append(errs, err)
	}
	if set.logger == nil {
		set.logger = slog.Default()
	}
	if set.namespace == "" {
		set.namespace, set.programNamespace, err = request.DefaultNamespace()
		errs = append(errs, err)
	}
	if requestErr == nil && set.namespace != "" {
		id := c.Request
		id.Namespace = set.namespace
		if set.reader, err = request.NewReader(id); err != nil {
			errs = append(errs, err) // the program's name broke the key rule
		}
	}
	if err := errors.Join(errs...); err != nil {
		return settings{}, err
	}
	return set, nil
}
