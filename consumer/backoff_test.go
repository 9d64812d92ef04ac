package consumer_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/internal/storekit"
)

// A message the handler gives back (its key in progress elsewhere) keeps
// the back-off's visibility: the consumer's extensions, made for another
// record of the batch that runs long, leave it alone.
func TestBackedOffMessageIsNotExtended(t *testing.T) {
	t.Parallel()
	b := setup(t)
	q := newFakeSQS(2 * time.Second)
	// Another worker holds "busy" for a minute.
	key, _ := idem.ClientKey("consumer-test", "busy")
	fp, _ := idemjson.Fingerprint([]byte(body("busy")))
	now := time.Now()
	if c, err := b.store.Claim(context.Background(), idem.ClaimRequest{Key: key, Owner: storekit.NewOwner(), Fingerprint: fp,
		Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil || !c.Claimed {
		t.Fatalf("claim: %+v, %v", c, err)
	}
	long, busy := q.send(body("long")), q.send(body("busy"))
	changesOf := func(id string) []int32 {
		var out []int32
		for _, ch := range q.visibilityChanges() {
			if ch.messageID == id {
				out = append(out, ch.timeout)
			}
		}
		return out
	}
	b.work = func(ctx context.Context, msg events.SQSMessage) error {
		for len(changesOf(long)) < 3 { // three extensions: past the 2 s timeout
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
		return nil
	}
	const url = "https://sqs.eu-west-1.amazonaws.com/123456789012/fake"
	b.start(q, url, b.handler(handler.WithBackoff(consumer.Backoff(q)), func(c *handler.Config) { c.QueueURL = url }))
	eventually(t, "the long message deleted", func() bool { return q.msg(long).deleted })
	got := changesOf(busy)
	if len(got) != 1 || got[0] < 50 {
		t.Errorf("visibility changes of the backed-off message %v; want one, the back-off to its lease's end (about 60 s)", got)
	}
	if m := q.msg(busy); m.deliveries != 1 || m.deleted {
		t.Errorf("backed-off message: %d deliveries, deleted %v; want 1, not deleted", m.deliveries, m.deleted)
	}
}
