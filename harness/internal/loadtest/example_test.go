package loadtest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/handler/handlertest"
	"github.com/idemq/idemq/harness/internal/loadtest"
	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
	"github.com/idemq/idemq/request"
)

// A wrapped handler run through an in-process event source mapping with
// every fault the kit applies in process: calls longer than the visibility
// timeout, crashes before the ack, broker duplicates, producer re-sends, and
// a store whose claims fail or lose their answers. The provider is billed
// once per key.
func Example() {
	ctx := context.Background()
	faults := loadtest.Faults{Seed: 1, Rates: map[loadtest.Fault]float64{
		loadtest.ShortVisibility: 0.2, loadtest.CrashBeforeAck: 0.1,
		loadtest.BrokerDuplicate: 0.2, loadtest.ProducerResend: 0.2,
	}}
	reqs := loadtest.Workload(40)

	// The model provider: 30 ms a call, 400 ms for the keys whose call
	// outlasts the queue's 200 ms visibility timeout.
	provider := loadtest.NewProvider(loadtest.WithCallTimeFunc(func(prompt string) time.Duration {
		for _, r := range reqs {
			if r.Prompt == prompt && faults.Picks(loadtest.ShortVisibility, r.Key) {
				return 400 * time.Millisecond
			}
		}
		return 30 * time.Millisecond
	}))
	defer provider.Close()

	// The function under test.
	mem, err := memstore.New()
	if err != nil {
		panic(err)
	}
	store := &loadtest.FaultStore{Store: mem, Latency: time.Millisecond, Errors: 0.1, LostAnswers: 0.1, Ops: []string{"claim"}}
	h, err := handler.New(store, func(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
		var body struct{ Prompt string }
		if err := jsonUnmarshal(msg.Body, &body); err != nil {
			return nil, err
		}
		return loadtest.Chat(ctx, provider.URL(), body.Prompt)
	}, handler.WithRequest(request.Identity{Namespace: "example"}), handler.WithIdem(idem.WithLease(2*time.Second)), handler.WithLogger(discard))
	if err != nil {
		panic(err)
	}

	queue := handlertest.NewQueue(handlertest.WithVisibility(200*time.Millisecond), handlertest.WithMaxReceives(50))
	go func() {
		_, _ = loadtest.Send(ctx, reqs, faults, 5*time.Millisecond, func(_ context.Context, r loadtest.Request) error {
			queue.Send(r.Body())
			return nil
		})
	}()
	esm := loadtest.ESM{
		Source:    queue,
		Instances: []loadtest.Invoker{loadtest.InvokerFunc(h), loadtest.InvokerFunc(h), loadtest.InvokerFunc(h)},
		BatchSize: 5,
		Timeout:   5 * time.Second,
		Faults:    faults,
	}
	stats, err := esm.Run(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	calls := provider.Calls()
	dup := 0
	for _, n := range calls {
		dup += n - 1
	}
	fmt.Printf("%d keys, %d billed, %d duplicate calls, %d dead letters\n", len(reqs), len(calls), dup, len(queue.DeadLetters()))
	fmt.Println("deliveries beyond one per key:", stats.TotalDeliveries() > len(reqs))
	// Output:
	// 40 keys, 40 billed, 0 duplicate calls, 0 dead letters
	// deliveries beyond one per key: true
}
