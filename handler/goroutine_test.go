package handler_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest/handlerbundle"
	"github.com/idemq/idemq/idem"
)

// In a synctest bubble, every goroutine the handler starts (workers, FIFO
// groups, heartbeats) must have ended when it returns: synctest.Test fails
// on goroutines left blocked, and the check below on any left at all.
func TestNoGoroutineOutlivesTheCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		b := setup(t)
		slow := func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
			switch msg.MessageId[0] {
			case 'p':
				panic("boom")
			case 'e':
				return nil, errors.New("failed")
			}
			time.Sleep(time.Minute) // heartbeats beat meanwhile (fake time)
			return []byte("ok"), nil
		}
		now := time.Now()
		holdKey(t, b.store, key("held"), now, now.Add(time.Hour))
		h := b.wrap(slow, handler.WithIdem(idem.WithHeartbeat(time.Second)), handler.WithConcurrency(3))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()

		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, arn := range []string{handlerbundle.StandardARN, handlerbundle.FIFOARN} {
				var msgs []events.SQSMessage
				for i, k := range []string{"a", "p", "e", "held", "a", "b"} {
					m := handlerbundle.Msg(fmt.Sprintf("%s-%d", k, i), k) // "p" panics, "e" fails, "held" is in progress
					m.EventSourceARN = arn
					m.Attributes = map[string]string{"MessageGroupId": []string{"g1", "g2"}[i%2]}
					msgs = append(msgs, m)
				}
				if _, err := h(ctx, events.SQSEvent{Records: msgs}); err != nil {
					t.Error(err)
				}
			}
		}()
		<-done
		synctest.Wait() // everything left in the bubble is now blocked
	})
}
