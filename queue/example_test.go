package queue_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/idemq/idemq/queue"
)

// A record must outlive every redelivery of its message: retention + max
// receives × (visibility timeout + batching window), plus a margin; and,
// with the dead-letter queue's retention given, a redrive from it as late
// as it keeps the message. Settings that cannot be safe for the function's
// timeout are refused, naming the setting.
func ExampleRecordLifetime() {
	q := queue.Settings{
		Retention:         4 * 24 * time.Hour, // SQS's default
		VisibilityTimeout: 30 * time.Second,
		MaxReceives:       5,
	}
	const timeout = 5 * time.Second // the function's
	life, err := queue.RecordLifetime(q, timeout)
	fmt.Println(life, err)

	q.DeadLetterRetention = 14 * 24 * time.Hour // the dead-letter queue's
	life, err = queue.RecordLifetime(q, timeout)
	fmt.Println(life, err)

	// A 45-second function behind a 30-second visibility timeout.
	_, err = queue.RecordLifetime(q, 45*time.Second)
	if se, ok := errors.AsType[*queue.SettingError](err); ok {
		fmt.Println("refused:", se.Setting)
	}
	// Output:
	// 120h4m0s <nil>
	// 540h4m0s <nil>
	// refused: VisibilityTimeout
}

// The message lifetime and the lifetime with one redrive from a standard
// dead-letter queue that keeps messages 14 days; an expiry of one day
// covers neither.
func ExampleSettings_RedriveLifetime() {
	q := queue.Settings{
		Retention:           4 * 24 * time.Hour,
		VisibilityTimeout:   30 * time.Second,
		MaxReceives:         5,
		DeadLetterRetention: 14 * 24 * time.Hour,
	}
	fmt.Println(q.MessageLifetime(), q.RedriveLifetime())
	fmt.Println(errors.Is(queue.CheckExpiry(q, 24*time.Hour), queue.ErrInvalidSettings))
	// Output:
	// 96h2m30s 432h2m30s
	// true
}

// A stream's record must outlive its deliveries: until it is too old for
// the mapping or the stream drops it, plus the batching window and the
// function's timeout; with the on-failure queue's retention given, one
// redrive too (read back from the stream, so while the stream keeps it).
// No retry is refused, naming the setting.
func ExampleStream_RecordLifetime() {
	s := queue.Stream{
		Retention:        24 * time.Hour, // a Kinesis stream's default
		MaxRetryAttempts: -1,             // Lambda's default: no limit
	}
	const timeout = time.Minute // the function's
	fmt.Println(s.RecordLifetime(timeout))

	s.OnFailureRetention = 14 * 24 * time.Hour // an SQS on-failure queue's
	fmt.Println(s.RecordLifetime(timeout))

	s.MaxRetryAttempts = 0
	_, err := s.RecordLifetime(timeout)
	if se, ok := errors.AsType[*queue.SettingError](err); ok {
		fmt.Println("refused:", se.Setting)
	}
	// Output:
	// 30h2m0s <nil>
	// 60h2m0s <nil>
	// refused: MaxRetryAttempts
}
