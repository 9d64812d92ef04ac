package queue_test

import (
	"fmt"
	"time"

	"github.com/idemq/idemq/queue"
)

// A queue with AWS's defaults and a standard dead-letter queue that keeps
// messages 14 days: the record must outlive one redrive from it.
func ExampleRecordLifetime() {
	q := queue.Settings{
		Retention:           4 * 24 * time.Hour,
		VisibilityTimeout:   30 * time.Second,
		MaxReceives:         5,
		DeadLetterRetention: 14 * 24 * time.Hour,
	}
	life, err := queue.RecordLifetime(q)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(q.MessageLifetime(), q.RedriveLifetime(), life)
	fmt.Println(queue.CheckExpiry(q, 24*time.Hour) != nil)
	// Output:
	// 96h2m30s 432h2m30s 540h4m0s
	// true
}
