package producer

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
)

// Send puts m's key in its body and sends it. An attempt whose answer is
// lost (a timeout, a connection cut after the request went out, a server
// error, a throttle) is sent again, the same body with the same key (and,
// on a FIFO queue, the same deduplication id), up to Config.MaxAttempts
// times with a back-off, while ctx lasts. These are the only attempts:
// each goes out once through the SDK, whatever the client's retryer. The
// queue may then hold the request twice: a duplicate message, never a
// duplicate request, since the handler keys on the body.
//
// The error (also in Sent.Err) wraps what refused the message before
// sending (ErrKeyMismatch, ErrBadMessage, ErrTooLarge, idem.ErrNoKey,
// idem.ErrBadKey, request.ErrBadBody), ErrRejected when SQS refused it,
// or ErrUnconfirmed when no answer confirmed it.
func (p *Producer) Send(ctx context.Context, m Message) (Sent, error) {
	pm, err := p.prepare(m)
	s := Sent{Key: pm.id.Value, RecordKey: pm.id.Key, DeduplicationID: pm.dedupID}
	if err != nil {
		s.Err = err
		return s, err
	}
	if err := ctx.Err(); err != nil {
		s.Err = err
		return s, err
	}
	b := p.newBackoff()
	var last error
	for s.Attempts < p.cfg.MaxAttempts {
		if s.Attempts > 0 {
			if err := sleep(ctx, b.Wait()); err != nil {
				last = errors.Join(last, err)
				break
			}
		}
		s.Attempts++
		actx, cancel := context.WithTimeout(ctx, p.cfg.AttemptTimeout)
		out, err := p.client.SendMessage(actx, &sqs.SendMessageInput{
			QueueUrl: aws.String(p.queueURL), MessageBody: aws.String(pm.body), MessageAttributes: pm.attributes,
			MessageGroupId: optional(pm.groupID), MessageDeduplicationId: optional(pm.dedupID),
		}, once)
		cancel()
		if err == nil {
			s.MessageID = aws.ToString(out.MessageId)
			return s, nil
		}
		last = err
		if rejected(err) {
			s.Err = fmt.Errorf("%w: %w", ErrRejected, err)
			return s, s.Err
		}
		if err := ctx.Err(); err != nil {
			last = errors.Join(last, err)
			break
		}
	}
	s.Err = fmt.Errorf("%w after %d attempts: %w", ErrUnconfirmed, s.Attempts, last)
	return s, s.Err
}

// rejected reports whether err is SQS's answer that it did not take the
// request: a client error (4xx) other than a throttle, a timeout, or one
// the SDK would have retried (*retry.MaxAttemptsError: a clock skew it
// has since corrected). Any other error leaves the outcome unknown.
func rejected(err error) bool {
	var re *awshttp.ResponseError
	if !errors.As(err, &re) {
		return false
	}
	if _, retryable := errors.AsType[*retry.MaxAttemptsError](err); retryable {
		return false
	}
	if status := re.HTTPStatusCode(); status < 400 || status >= 500 || status == 408 || status == 429 {
		return false
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		code := api.ErrorCode()
		_, throttle := retry.DefaultThrottleErrorCodes[code]
		_, transient := retry.DefaultRetryableErrorCodes[code]
		if throttle || transient || code == "KmsThrottled" {
			return false
		}
	}
	return true
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}
