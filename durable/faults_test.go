package durable_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/durable"
	"github.com/idemq/idemq/durable/durabletest"
	"github.com/idemq/idemq/idem/idemjson"
)

// Under every fault a network gives an Invoke (answered, throttled, a
// server error, dropped before it is applied, applied with its answer
// lost), with duplicate deliveries and re-sent messages: no message is
// acknowledged unless its execution exists with its payload, and every key
// ends with exactly one execution.
func TestFaultsOneExecutionPerKey(t *testing.T) {
	t.Parallel()
	faults := []durabletest.Fault{durabletest.Answer, durabletest.Throttle, durabletest.ServerError, durabletest.DropBefore, durabletest.DropAfter}
	for seed := range uint64(20) {
		attempts := 1 // the SDK's retries off: every fault reaches the dispatcher
		if seed%5 == 0 {
			attempts = 0 // the SDK's default retries
		}
		b := setup(t, attempts, durable.WithConcurrency(4))
		// Two sources: the server calls its own under its lock, from the
		// goroutines serving requests.
		rng, faultRNG := rand.New(rand.NewPCG(seed, 29)), rand.New(rand.NewPCG(seed, 30))
		b.srv.SetFault(func(durabletest.Request) durabletest.Fault {
			if faultRNG.IntN(2) == 0 {
				return durabletest.Answer
			}
			return faults[faultRNG.IntN(len(faults))]
		})

		// Six keys; each sent once, then re-sent (a new message id, the
		// body encoded anew) by a producer that lost its send's answer.
		var pending []events.SQSMessage
		for k := range 6 {
			key, prompt := fmt.Sprintf("order-%d", k), fmt.Sprintf("summarise doc %d", k)
			pending = append(pending, msg(fmt.Sprintf("m%d", k), key, prompt))
			resent := msg(fmt.Sprintf("m%d-resent", k), "", "")
			resent.Body = fmt.Sprintf(`{"prompt": %q, "idempotency_key": %q}`, prompt, key)
			pending = append(pending, resent)
		}
		delivered := 0
		for round := 0; len(pending) > 0; round++ {
			if round == 50 {
				t.Fatalf("seed %d: %d messages still unacknowledged after 50 rounds", seed, len(pending))
			}
			// Each round delivers what is pending, some of it twice.
			batch := append([]events.SQSMessage(nil), pending...)
			batch = append(batch, pending[rng.IntN(len(pending))])
			rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
			delivered += len(batch)
			acked, _ := b.handle(t, batch...)
			ackedSet := map[string]bool{}
			for _, id := range acked {
				ackedSet[id] = true
			}
			var next []events.SQSMessage
			for _, m := range pending {
				if !ackedSet[m.MessageId] {
					next = append(next, m)
					continue
				}
				checkStarted(t, b.srv, m)
			}
			pending = next
		}
		if n := len(b.srv.Executions()); n != 6 {
			t.Errorf("seed %d: %d executions for 6 keys", seed, n)
		}
		t.Logf("seed %d: %d deliveries, %d Invoke requests, %d executions", seed, delivered, len(b.srv.Requests()), len(b.srv.Executions()))
	}
}

// checkStarted fails t unless m's execution exists with m's payload.
func checkStarted(t *testing.T, srv *durabletest.Server, m events.SQSMessage) {
	t.Helper()
	key, _ := idemjson.Parse(m.Body)
	k, _ := key.Field("idempotency_key")
	e, ok := srv.Execution("summarise", name(k.(string)))
	want, err := idemjson.Canonical([]byte(m.Body))
	if err != nil {
		t.Fatal(err)
	}
	if !ok || string(e.Payload) != string(want) {
		t.Errorf("%s acknowledged, but its execution is %+v (%v)", m.MessageId, e, ok)
	}
}
