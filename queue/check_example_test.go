package queue_test

import (
	"fmt"
	"time"

	"github.com/idemq/idemq/queue"
)

// A claim's lease must end soon enough for the message to be retried
// while it may still be received: a 15-minute lease behind a 30-second
// visibility timeout needs more receives than the queue gives.
func ExampleCheckLease() {
	q := queue.Settings{
		Retention:         4 * 24 * time.Hour,
		VisibilityTimeout: 30 * time.Second,
		MaxReceives:       3,
	}
	fmt.Println(queue.CheckLease(q, 20*time.Second, false))
	fmt.Println(queue.CheckLease(q, 15*time.Minute, false))
	// Output:
	// <nil>
	// queue: invalid settings: lease 15m0s: a message whose worker crashed holding the key reaches the dead-letter queue with its work undone: the key is held up to batching window 0s + lease = 15m0s after the receive, 30 receives find it in progress (one every visibility timeout while the lease runs), and a retry needs 32 receives in all, more than max receives 3; shorten the lease or raise max receives or the visibility timeout 30s
}

// A record expiry must cover the message's lifetime: SQS's default
// retention of 4 days outlives a 3-day expiry.
func ExampleCheckExpiry() {
	q := queue.Settings{
		Retention:         4 * 24 * time.Hour,
		VisibilityTimeout: 30 * time.Second,
		MaxReceives:       3,
	}
	fmt.Println(queue.CheckExpiry(q, 7*24*time.Hour))
	fmt.Println(queue.CheckExpiry(q, 3*24*time.Hour))
	// Output:
	// <nil>
	// queue: invalid settings: record expiry 72h0m0s is 24h1m30s shorter than the message lifetime 96h1m30s (retention 96h0m0s + 3 receives × (visibility 30s + batching window 0s)); raise the expiry or lower those settings
}
