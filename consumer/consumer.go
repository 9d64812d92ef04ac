package consumer

import (
	"context"
	"errors"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/internal/optkit"
)

// SQS is the part of the SQS client a Consumer calls. *sqs.Client
// satisfies it (and handler.VisibilityChanger, for handler.WithBackoff).
// A wrapper passes the per-call options on: they make each call one
// request, the consumer's loops its only retries.
type SQS interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
	ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

var _ SQS = (*sqs.Client)(nil)

// Errors of a Consumer's life.
var (
	// ErrStarted is returned by Start on a consumer started before.
	ErrStarted = errors.New("consumer: already started")
	// ErrNotStarted is returned by Stop, StopAndCancel and Healthy before
	// Start.
	ErrNotStarted = errors.New("consumer: not started")
	// ErrStopped is returned by Healthy once the consumer stops receiving.
	ErrStopped = errors.New("consumer: stopped")
	// ErrQueue wraps what Start could not learn about the queue.
	ErrQueue = errors.New("consumer: queue")
)

// Consumer receives batches from one SQS queue and hands each to a
// handler, as Lambda's SQS event source mapping does; see the package
// doc. Make it with New.
type Consumer struct {
	client   SQS
	queueURL string
	h        handler.Handler
	cfg      Config

	arn, region string

	mu         sync.Mutex
	started    bool
	stopping   bool
	stopRecv   context.CancelFunc // ends the receive loop
	cancelWork context.CancelCauseFunc
	workCtx    context.Context
	batches    sync.WaitGroup
	done       chan struct{} // closed when the loop and every batch have ended

	stats stats
}

// New returns a consumer of the queue at queueURL that hands each batch to
// h, normally what handler.New returns. It returns an error joining an
// *idem.ConfigError for every bad setting (joined): a nil
// client or handler, an empty URL, a nil option, a setting Validate
// refuses. Nothing is sent before Start.
func New(client SQS, queueURL string, h handler.Handler, opts ...Option) (*Consumer, error) {
	var errs []error
	if client == nil {
		errs = append(errs, configError("client", "", optkit.ErrNil))
	}
	if queueURL == "" {
		errs = append(errs, configError("queueURL", `""`, errors.New("must not be empty")))
	}
	if h == nil {
		errs = append(errs, configError("h", "", optkit.ErrNil))
	}
	cfg, err := optkit.ApplyOptions("consumer", opts)
	errs = append(errs, err)
	cfg, err = cfg.resolve()
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	return &Consumer{client: client, queueURL: queueURL, h: h, cfg: cfg, done: make(chan struct{})}, nil
}

// Stop stops receiving and waits until the running batches have returned
// and their acknowledged messages are deleted, or until ctx ends, whichever
// comes first; it returns ctx's error in the second case, with the work
// still running (StopAndCancel cancels it). Nothing unfinished is ever
// deleted.
func (c *Consumer) Stop(ctx context.Context) error {
	if err := c.stopReceiving(); err != nil {
		return err
	}
	return c.wait(ctx)
}

// StopAndCancel stops receiving, cancels the context of the running work
// (cause context.Canceled), and waits as Stop does. Work that returns
// because of it fails its records, whose claims are released and whose
// messages come back; work that had finished is still acknowledged.
func (c *Consumer) StopAndCancel(ctx context.Context) error {
	if err := c.stopReceiving(); err != nil {
		return err
	}
	c.mu.Lock()
	cancel := c.cancelWork
	c.mu.Unlock()
	if cancel != nil {
		cancel(context.Canceled)
	}
	return c.wait(ctx)
}

// Stopped returns a channel closed once the consumer has stopped: no
// receive runs and every batch has ended.
func (c *Consumer) Stopped() <-chan struct{} { return c.done }

func (c *Consumer) stopReceiving() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.started {
		return ErrNotStarted
	}
	c.stopping = true
	if c.stopRecv != nil {
		c.stopRecv()
	}
	return nil
}

func (c *Consumer) wait(ctx context.Context) error {
	select {
	case <-c.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
