package consumer

import (
	"context"
	"strconv"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/idemq/idemq/queue"
)

// delete deletes the acknowledged records, up to 10 a call, retrying
// the entries that failed for a reason that may pass (a failed call, an
// entry failed by SQS's side) with back-off for Config.DeleteTimeout. It
// runs even after StopAndCancel: their work is done. A message it cannot
// delete is logged and left: it comes back, and its key's record replays
// the result. It returns how many were deleted and how many were not.
func (c *Consumer) delete(records []events.SQSMessage) (deleted, notDeleted int) {
	if len(records) == 0 {
		return 0, 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.DeleteTimeout)
	defer cancel()
	for start := 0; start < len(records); start += 10 {
		d, n := c.deleteChunk(ctx, records[start:min(start+10, len(records))])
		deleted += d
		notDeleted += n
	}
	return deleted, notDeleted
}

func (c *Consumer) deleteChunk(ctx context.Context, records []events.SQSMessage) (deleted, notDeleted int) {
	pending := make(map[string]events.SQSMessage, len(records)) // entry id → record
	for i, r := range records {
		pending[strconv.Itoa(i)] = r
	}
	bo := c.newBackoff()
	for attempt := 1; ; attempt++ {
		in := &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(c.queueURL)}
		for id, r := range pending {
			in.Entries = append(in.Entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(id), ReceiptHandle: aws.String(r.ReceiptHandle)})
		}
		out, err := c.client.DeleteMessageBatch(ctx, in, once)
		if err != nil {
			c.stats.deleteErrors.Add(1)
			c.cfg.Logger.Warn("idemq consumer: delete failed; retrying", "messages", len(pending), "attempt", attempt, "err", err.Error())
		} else {
			for _, s := range out.Successful {
				if _, ok := pending[aws.ToString(s.Id)]; ok {
					delete(pending, aws.ToString(s.Id))
					deleted++
				}
			}
			for _, f := range out.Failed {
				id := aws.ToString(f.Id)
				r, ok := pending[id]
				if !ok {
					continue
				}
				c.stats.deleteErrors.Add(1)
				if f.SenderFault {
					// Retrying cannot help (a receipt handle SQS no
					// longer takes): the message comes back.
					delete(pending, id)
					notDeleted++
					c.cfg.Logger.Warn("idemq consumer: message not deleted; it comes back and replays its key's result",
						"message_id", r.MessageId, "code", aws.ToString(f.Code), "err", aws.ToString(f.Message))
					continue
				}
				c.cfg.Logger.Warn("idemq consumer: delete failed; retrying", "message_id", r.MessageId, "attempt", attempt,
					"code", aws.ToString(f.Code), "err", aws.ToString(f.Message))
			}
		}
		if len(pending) == 0 {
			return deleted, notDeleted
		}
		if !queue.Sleep(ctx, bo.Wait()) {
			break
		}
	}
	for _, r := range pending {
		notDeleted++
		c.cfg.Logger.Warn("idemq consumer: message not deleted before the delete timeout; it comes back and replays its key's result",
			"message_id", r.MessageId, "delete_timeout", c.cfg.DeleteTimeout.String())
	}
	return deleted, notDeleted
}
