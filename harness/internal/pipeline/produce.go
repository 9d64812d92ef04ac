package pipeline

import (
	"context"
	"time"

	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/producer"
)

// startProducer makes the run's producer: package producer, sending to
// the queue through endpoint behind a SendProxy that loses the answer to
// the first send of each key fault ProducerLostAnswer picks. Its client
// is as users build one, the SDK's standard retryer: each of the
// producer's attempts goes out once through it, so each re-send is the
// producer's, and counted.
func (r *runner) startProducer(endpoint string) error {
	proxy, err := NewSendProxy(endpoint, func(key string) bool { return r.cfg.Faults.Picks(loadtest.ProducerLostAnswer, key) })
	if err != nil {
		return err
	}
	r.sendProxy = proxy
	r.cleanups = append(r.cleanups, proxy.Close)
	r.producer, err = producer.New(NewSQSClient(proxy.URL()), r.queue.URL, func(c *producer.Config) { c.RetryMin, c.RetryMax = 10*time.Millisecond, 200*time.Millisecond })
	return err
}

// produce sends q with the producer: its payload, the key put in by the
// producer (the body is then q.Body()), in its message group on FIFO.
func (r *runner) produce(ctx context.Context, q loadtest.Request) (producer.Sent, error) {
	sent, err := r.producer.Send(ctx, producer.Message{Key: q.Key, Body: []byte(q.Payload()), GroupID: r.groupOf[q.Key]})
	r.mu.Lock()
	r.sendAttempts += sent.Attempts
	r.mu.Unlock()
	return sent, err
}

// send is the standard queue's producer.
func (r *runner) send(ctx context.Context, q loadtest.Request) error {
	_, err := r.produce(ctx, q)
	return err
}

// sendFIFO is the FIFO producer: each key in its message group, with the
// producer's deduplication id (the key). A re-send is sent twice: with
// the producer, under the same id, which the queue drops (within its
// 5-minute deduplication window: FIFO's own guard against a re-send),
// then with the id KEY#2, as a producer re-sending after that window or
// deriving a new id per attempt does: only the claim can catch that one.
// loadtest.Send calls it from one goroutine.
func (r *runner) sendFIFO(ctx context.Context, q loadtest.Request) error {
	first, resend := r.firstID[q.Key]
	sent, err := r.produce(ctx, q)
	if !resend {
		r.firstID[q.Key] = sent.MessageID
		return err
	}
	if err != nil {
		return err
	}
	r.mu.Lock()
	if sent.MessageID == first {
		r.dedupDropped++
	} else {
		r.dedupKept++
	}
	r.mu.Unlock()
	_, err = r.queue.SendFIFO(ctx, q.Body(), r.groupOf[q.Key], q.Key+"#2")
	return err
}
