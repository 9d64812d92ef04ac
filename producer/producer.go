package producer

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/internal/optkit"
	"github.com/idemq/idemq/request"
)

// SQSAPI is what the producer calls; *sqs.Client satisfies it. A wrapper
// passes the per-call options on: they make each attempt one request.
type SQSAPI interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
}

// Producer sends requests to one queue, each with its idempotency key in
// its body. It is safe for concurrent use.
type Producer struct {
	client   SQSAPI
	queueURL string
	fifo     bool
	cfg      Config
	// reader puts the key where the handler reads it, and reads it back.
	reader *request.Reader
}

// New returns a Producer that sends to queueURL through client; a URL
// ending in ".fifo" is a FIFO queue's. It returns an error joining an
// *idem.ConfigError for every bad setting (joined): a nil
// client, an empty URL, a nil option, a setting Validate refuses.
func New(client SQSAPI, queueURL string, opts ...Option) (*Producer, error) {
	var errs []error
	if client == nil {
		errs = append(errs, configError("client", "", optkit.ErrNil))
	}
	if queueURL == "" {
		errs = append(errs, configError("queueURL", `""`, errors.New("must not be empty")))
	}
	cfg, err := optkit.ApplyOptions("producer", opts)
	errs = append(errs, err)
	cfg, err = cfg.resolve()
	if err := errors.Join(append(errs, err)...); err != nil {
		return nil, err
	}
	reader, err := request.NewReader(cfg.Request)
	if err != nil { // not reached: resolve validated it
		return nil, err
	}
	return &Producer{client: client, queueURL: queueURL, fifo: strings.HasSuffix(queueURL, ".fifo"), cfg: cfg, reader: reader}, nil
}

// Request returns the request.Identity p sends by (Config.Request), for a
// part that must send by the same one (a front door) to check at wiring.
func (p *Producer) Request() request.Identity {
	id := p.cfg.Request
	id = id.Clone()
	return id
}
