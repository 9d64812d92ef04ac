package consumer

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/handler"
)

// batchContextKey carries a running batch's extender in the context the
// consumer hands the handler.
type batchContextKey struct{}

// Backoff wraps the client given to handler.WithBackoff so that a message
// the handler gives back (its key in progress on another worker, hidden
// until that lease ends) is no longer kept hidden by the consumer running
// its batch. Without it the batch's next extension, when other records of
// the batch run long, would cut the back-off short: the message would come
// back, and spend a receive of its maxReceiveCount, before the lease it
// waits for ends.
//
//	client := sqs.NewFromConfig(cfg)
//	h := handler.New(store, fn, handler.WithBackoff(consumer.Backoff(client)), handler.Config.QueueURL(queueURL))
//	c, err := consumer.New(client, queueURL, h)
//
// Outside a consumer's batch it calls client as it is. Backoff(nil) is
// nil, which handler.New refuses (Config.Backoff is nil).
func Backoff(client handler.VisibilityChanger) handler.VisibilityChanger {
	if client == nil {
		return nil
	}
	return backoffClient{client}
}

type backoffClient struct{ handler.VisibilityChanger }

func (b backoffClient) ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	if e, ok := ctx.Value(batchContextKey{}).(*extender); ok {
		// Taken under the lock an extension holds while it is sent, so
		// the back-off lands after any extension that still named the
		// message, and no later one does.
		e.mu.Lock()
		e.dropped[aws.ToString(in.ReceiptHandle)] = true
		e.mu.Unlock()
	}
	return b.VisibilityChanger.ChangeMessageVisibility(ctx, in, optFns...)
}
