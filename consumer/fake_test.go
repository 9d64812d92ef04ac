package consumer_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// fakeSQS is an in-memory standard queue with visibility timeouts, and
// hooks that inject faults. It implements consumer.SQS.
type fakeSQS struct {
	vis time.Duration

	mu       sync.Mutex
	msgs     []*fakeMsg
	seq      int
	added    chan struct{} // closed and replaced when a message is sent
	receives int           // ReceiveMessage calls
	changes  []visibilityChange

	// Hooks, each called without mu held; nil: no fault.
	onReceive func(n int) error                    // n counts calls from 1; an error fails the call
	onDelete  func(n int, id string) (error, bool) // per entry: a whole-call error, or true to fail the entry (not the sender's fault)
	onChange  func(n int) error                    // per call: an error fails the call
	deletes   int
}

type fakeMsg struct {
	id, body   string
	handle     string
	visibleAt  time.Time
	deliveries int
	deleted    bool
}

type visibilityChange struct {
	messageID string
	timeout   int32
}

func newFakeSQS(vis time.Duration) *fakeSQS {
	return &fakeSQS{vis: vis, added: make(chan struct{})}
}

func (f *fakeSQS) send(body string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	id := fmt.Sprintf("m%d", f.seq)
	f.msgs = append(f.msgs, &fakeMsg{id: id, body: body})
	close(f.added)
	f.added = make(chan struct{})
	return id
}

func (f *fakeSQS) msg(id string) fakeMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range f.msgs {
		if m.id == id {
			return *m
		}
	}
	return fakeMsg{}
}

func (f *fakeSQS) visibilityChanges() []visibilityChange {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]visibilityChange(nil), f.changes...)
}

func (f *fakeSQS) GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		"QueueArn":          "arn:aws:sqs:eu-west-1:123456789012:fake",
		"VisibilityTimeout": strconv.Itoa(int(f.vis / time.Second)),
	}}, nil
}

func (f *fakeSQS) ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, _ ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error) {
	f.mu.Lock()
	f.receives++
	n := f.receives
	f.mu.Unlock()
	if f.onReceive != nil {
		if err := f.onReceive(n); err != nil {
			return nil, err
		}
	}
	vis := f.vis
	if in.VisibilityTimeout > 0 {
		vis = time.Duration(in.VisibilityTimeout) * time.Second
	}
	wait := time.NewTimer(time.Duration(in.WaitTimeSeconds) * time.Second)
	defer wait.Stop()
	for {
		// Messages are taken before the context is looked at, as an
		// answer already on its way would be.
		f.mu.Lock()
		now := time.Now()
		var out []types.Message
		var soonest time.Time
		for _, m := range f.msgs {
			if m.deleted {
				continue
			}
			if m.visibleAt.After(now) {
				if soonest.IsZero() || m.visibleAt.Before(soonest) {
					soonest = m.visibleAt
				}
				continue
			}
			if len(out) == int(in.MaxNumberOfMessages) {
				break
			}
			m.deliveries++
			m.handle = fmt.Sprintf("%s-%d", m.id, m.deliveries)
			m.visibleAt = now.Add(vis)
			out = append(out, types.Message{
				MessageId: aws.String(m.id), ReceiptHandle: aws.String(m.handle), Body: aws.String(m.body),
				Attributes: map[string]string{"ApproximateReceiveCount": strconv.Itoa(m.deliveries)},
			})
		}
		added := f.added
		f.mu.Unlock()
		if len(out) > 0 {
			return &sqs.ReceiveMessageOutput{Messages: out}, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var soon <-chan time.Time
		if !soonest.IsZero() {
			t := time.NewTimer(time.Until(soonest))
			defer t.Stop()
			soon = t.C
		}
		select {
		case <-ctx.Done():
		case <-added:
		case <-soon:
		case <-wait.C:
			return &sqs.ReceiveMessageOutput{}, nil
		}
	}
}

// byHandle finds the message a receipt handle is current for; f.mu held.
func (f *fakeSQS) byHandle(h string) *fakeMsg {
	for _, m := range f.msgs {
		if m.handle == h && !m.deleted {
			return m
		}
	}
	return nil
}

func (f *fakeSQS) DeleteMessageBatch(ctx context.Context, in *sqs.DeleteMessageBatchInput, _ ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error) {
	f.mu.Lock()
	f.deletes++
	n := f.deletes
	f.mu.Unlock()
	out := &sqs.DeleteMessageBatchOutput{}
	for _, e := range in.Entries {
		if f.onDelete != nil {
			f.mu.Lock()
			m := f.byHandle(aws.ToString(e.ReceiptHandle))
			f.mu.Unlock()
			id := ""
			if m != nil {
				id = m.id
			}
			err, failEntry := f.onDelete(n, id)
			if err != nil {
				return nil, err
			}
			if failEntry {
				out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("InternalError"), SenderFault: false})
				continue
			}
		}
		f.mu.Lock()
		m := f.byHandle(aws.ToString(e.ReceiptHandle))
		if m != nil {
			m.deleted = true
		}
		f.mu.Unlock()
		if m == nil {
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("ReceiptHandleIsInvalid"), SenderFault: true})
			continue
		}
		out.Successful = append(out.Successful, types.DeleteMessageBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

func (f *fakeSQS) ChangeMessageVisibilityBatch(ctx context.Context, in *sqs.ChangeMessageVisibilityBatchInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityBatchOutput, error) {
	if f.onChange != nil {
		if err := f.onChange(0); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &sqs.ChangeMessageVisibilityBatchOutput{}
	for _, e := range in.Entries {
		m := f.byHandle(aws.ToString(e.ReceiptHandle))
		if m == nil || !m.visibleAt.After(time.Now()) {
			out.Failed = append(out.Failed, types.BatchResultErrorEntry{Id: e.Id, Code: aws.String("MessageNotInflight"), SenderFault: true})
			continue
		}
		m.visibleAt = time.Now().Add(time.Duration(e.VisibilityTimeout) * time.Second)
		f.changes = append(f.changes, visibilityChange{messageID: m.id, timeout: e.VisibilityTimeout})
		out.Successful = append(out.Successful, types.ChangeMessageVisibilityBatchResultEntry{Id: e.Id})
	}
	return out, nil
}

func (f *fakeSQS) ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, _ ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	out, err := f.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: in.QueueUrl,
		Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{Id: aws.String("0"), ReceiptHandle: in.ReceiptHandle, VisibilityTimeout: in.VisibilityTimeout}}})
	if err != nil {
		return nil, err
	}
	if len(out.Failed) > 0 {
		return nil, fmt.Errorf("fake SQS: %s", aws.ToString(out.Failed[0].Code))
	}
	return &sqs.ChangeMessageVisibilityOutput{}, nil
}
