package handler

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// backoff sets the visibility of the message of a record found in
// progress (WithBackoff) to about the time its key's lease has left, and
// returns f with backedOff set when it did. A failure is logged: the
// message then comes back after the queue's visibility timeout, as without
// back-off. A stream's record has no receipt handle (no visibility to
// set): its record in progress is a failure its shard resumes from.
func (b *batch) backoff(rec *record, f fate) fate {
	if f.work != workInProgress || b.settings.backoff == nil || f.leaseUntil.IsZero() || rec.msg.ReceiptHandle == "" {
		return f
	}
	url := b.settings.queueURL
	if url == "" {
		var err error
		if url, err = queueURLFromARN(rec.msg.EventSourceARN); err != nil {
			b.settings.logger.WarnContext(b.ctx, "idemq: no back-off", "message_id", rec.msg.MessageId, "err", err)
			return f
		}
	}
	secs := visibilityFor(f.leaseUntil, b.now())
	_, err := b.settings.backoff.ChangeMessageVisibility(b.ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl:          aws.String(url),
		ReceiptHandle:     aws.String(rec.msg.ReceiptHandle),
		VisibilityTimeout: secs,
	})
	if err != nil {
		b.settings.logger.WarnContext(b.ctx, "idemq: back-off failed", "message_id", rec.msg.MessageId, "err", err)
		return f
	}
	f.backedOff = true
	return f
}
