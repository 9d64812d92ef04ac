package producer

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// SendBatch sends msgs with SendMessageBatch: in input order, split into
// batches of at most 10 messages and Config.MaxBatchBytes
// body bytes, one batch after another. It returns a Sent per message, in
// input order, and an error joining the failed ones' (each Sent.Err, a
// *MessageError naming the message and its key).
//
// A message refused before sending (too large, no key, another key in
// the body) fails alone: the others are still sent. A batch whose answer
// is lost is sent again whole; of a batch SQS partly failed, only the
// failed entries are sent again (those it failed as the sender's fault are
// not: ErrRejected). Each message's attempts are bounded by
// Config.MaxAttempts, as in Send. On a FIFO queue an entry sent again
// lands after the entries of its batch that went through: give each
// message group's messages to SendBatch in order, and keep a group's
// order strict with Send.
func (p *Producer) SendBatch(ctx context.Context, msgs []Message) ([]Sent, error) {
	out := make([]Sent, len(msgs))
	preps := make([]prepared, len(msgs))
	var ready []int
	for i, m := range msgs {
		pm, err := p.prepare(m)
		preps[i] = pm
		out[i] = Sent{Key: pm.id.Value, RecordKey: pm.id.Key, DeduplicationID: pm.dedupID, Err: err}
		if err == nil {
			ready = append(ready, i)
		}
	}
	for _, batch := range p.split(preps, ready) {
		p.sendBatch(ctx, batch, preps, out)
	}
	var errs []error
	for i := range out {
		if out[i].Err != nil {
			out[i].Err = &MessageError{Index: i, Key: out[i].Key, Err: out[i].Err}
			errs = append(errs, out[i].Err)
		}
	}
	return out, errors.Join(errs...)
}

// split deals the ready messages, in order, into batches within SQS's
// limits on entries and bytes.
func (p *Producer) split(preps []prepared, ready []int) [][]int {
	var batches [][]int
	var cur []int
	size := 0
	for _, i := range ready {
		n := preps[i].size
		if len(cur) == maxBatchEntries || size+n > p.cfg.MaxBatchBytes {
			batches = append(batches, cur)
			cur, size = nil, 0
		}
		cur = append(cur, i)
		size += n
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	return batches
}

// sendBatch sends one batch, and again its entries whose outcome is
// unknown, writing each message's outcome into out.
func (p *Producer) sendBatch(ctx context.Context, pending []int, preps []prepared, out []Sent) {
	last := map[int]error{}
	b := p.newBackoff()
	for attempt := 0; len(pending) > 0 && attempt < p.cfg.MaxAttempts; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, b.Wait()); err != nil {
				for _, i := range pending {
					last[i] = errors.Join(last[i], err)
				}
				break
			}
		} else if err := ctx.Err(); err != nil {
			for _, i := range pending {
				out[i].Err = err
			}
			return
		}
		entries := make([]types.SendMessageBatchRequestEntry, len(pending))
		for n, i := range pending {
			out[i].Attempts++
			pm := preps[i]
			entries[n] = types.SendMessageBatchRequestEntry{
				Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(pm.body), MessageAttributes: pm.attributes,
				MessageGroupId: optional(pm.groupID), MessageDeduplicationId: optional(pm.dedupID),
			}
		}
		actx, cancel := context.WithTimeout(ctx, p.cfg.AttemptTimeout)
		res, err := p.client.SendMessageBatch(actx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(p.queueURL), Entries: entries}, once)
		cancel()
		if err != nil {
			if rejected(err) {
				for _, i := range pending {
					out[i].Err = fmt.Errorf("%w: %w", ErrRejected, err)
				}
				return
			}
			for _, i := range pending {
				last[i] = err
			}
		} else {
			pending = p.settle(pending, res, out, last)
		}
		if err := ctx.Err(); err != nil {
			for _, i := range pending {
				last[i] = errors.Join(last[i], err)
			}
			break
		}
	}
	for _, i := range pending {
		out[i].Err = fmt.Errorf("%w after %d attempts: %w", ErrUnconfirmed, out[i].Attempts, last[i])
	}
}

// settle writes the outcome of the entries the answer settles and
// returns the others, in input order, to be sent again: those SQS failed
// through no fault of the sender, and those the answer does not name.
func (p *Producer) settle(pending []int, res *sqs.SendMessageBatchOutput, out []Sent, last map[int]error) []int {
	done, failed := map[int]bool{}, map[int]bool{}
	for _, s := range res.Successful {
		if i, ok := entryIndex(s.Id, pending); ok {
			out[i].MessageID, done[i] = aws.ToString(s.MessageId), true
		}
	}
	for _, f := range res.Failed {
		i, ok := entryIndex(f.Id, pending)
		if !ok || done[i] {
			continue
		}
		err := fmt.Errorf("SQS failed the entry: %s: %s", aws.ToString(f.Code), aws.ToString(f.Message))
		if f.SenderFault {
			out[i].Err, done[i] = fmt.Errorf("%w: %w", ErrRejected, err), true
			continue
		}
		last[i], failed[i] = err, true
	}
	var again []int
	for _, i := range pending {
		if done[i] {
			continue
		}
		if !failed[i] {
			last[i] = errors.New("the answer does not name the entry")
		}
		again = append(again, i)
	}
	return again
}

// entryIndex returns the message index an entry id names, if it is one
// of pending.
func entryIndex(id *string, pending []int) (int, bool) {
	i, err := strconv.Atoi(aws.ToString(id))
	if err != nil {
		return 0, false
	}
	for _, j := range pending {
		if j == i {
			return i, true
		}
	}
	return 0, false
}
