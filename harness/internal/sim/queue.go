package sim

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// queueARN names a standard queue: the handler runs records side by side,
// not in FIFO order.
const queueARN = "arn:aws:sqs:us-east-1:000000000000:sim"

func (w *world) send(key string) {
	w.seq++
	w.msgs = append(w.msgs, &message{id: fmt.Sprintf("m%d", w.seq), key: key, visibleAt: w.now})
}

func (w *world) visibleMsgs() []*message {
	var out []*message
	for _, m := range w.msgs {
		if !m.deleted && !w.now.Before(m.visibleAt) {
			out = append(out, m)
		}
	}
	return out
}

// deliver hands an idle instance a batch of visible messages and starts its
// handler, which runs to its first yield.
func (w *world) deliver(wk *worker, visible []*message) {
	n := 1 + w.rng.IntN(min(w.cfg.BatchSize, len(visible)))
	w.batches++
	b := &batch{n: w.batches, claims: map[string]*exec{}, replays: map[string][]byte{}}
	var records []events.SQSMessage
	var names []string
	seen := map[string]bool{}
	for _, i := range w.rng.Perm(len(visible))[:n] {
		m := visible[i]
		m.receives++
		if m.receives > w.cfg.MaxReceives {
			m.deleted = true
			w.dead[m.key] = true
			w.stats.DeadLetters++
			w.logf("dead-letter %s (%s)", m.id, m.key)
			continue
		}
		w.seq++
		m.receipt = w.seq
		m.visibleAt = w.now.Add(w.visible)
		b.msgs, b.receipts = append(b.msgs, m), append(b.receipts, m.receipt)
		records = append(records, events.SQSMessage{
			MessageId: m.id, ReceiptHandle: fmt.Sprintf("r%d", m.receipt), Body: fmt.Sprintf(`{"id":%q}`, m.key),
			EventSourceARN: queueARN, Attributes: map[string]string{"ApproximateReceiveCount": fmt.Sprint(m.receives)},
		})
		names = append(names, fmt.Sprintf("%s (%s)", m.id, m.key))
		if seen[m.key] {
			w.stats.Copies++
		}
		seen[m.key] = true
	}
	if len(records) == 0 {
		return
	}
	w.stats.Batches++
	w.stats.Deliveries += len(records)
	wk.busy, wk.batch = true, b
	w.logf("w%d receives b%d: %s", wk.id, b.n, strings.Join(names, ", "))
	go wk.invoke(events.SQSEvent{Records: records})
	w.await(wk)
}

// invoke runs the instance's handler on one batch; its answer, or its end
// if the instance died, is the instance's last event for the batch.
func (wk *worker) invoke(ev events.SQSEvent) {
	var resp events.SQSEventResponse
	var err error
	defer func() { wk.events <- event{at: returned, resp: resp, err: err} }()
	resp, err = wk.handle(context.Background(), ev)
}

// respond is the event source mapping acting on a handler's answer: it
// deletes every message the answer does not list as a failure, if its
// receipt is still current. An error, or an unknown item identifier, fails
// the whole batch.
func (w *world) respond(wk *worker) {
	b := wk.batch
	wk.busy, wk.batch = false, nil
	failed := map[string]bool{}
	for _, f := range wk.resp.BatchItemFailures {
		failed[f.ItemIdentifier] = true
	}
	known := 0
	for _, m := range b.msgs {
		if failed[m.id] {
			known++
		}
	}
	if wk.respErr != nil || known != len(failed) {
		w.logf("w%d: b%d fails as a whole (%v)", wk.id, b.n, wk.respErr)
		return
	}
	var acked, back []string
	for i, m := range b.msgs {
		switch {
		case failed[m.id]:
			back = append(back, m.id)
		case m.deleted || m.receipt != b.receipts[i]:
			acked = append(acked, m.id+" (stale receipt)")
		default:
			m.deleted = true
			acked = append(acked, m.id)
			if err := w.checkAck(b, m); err != nil && w.broken == nil {
				w.broken = err
			}
		}
	}
	w.logf("w%d answers b%d: acks [%s], back [%s]", wk.id, b.n, strings.Join(acked, " "), strings.Join(back, " "))
}
