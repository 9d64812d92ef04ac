package queue

import (
	"fmt"
	"time"
)

// RecordLifetime is how long an idempotency record must be kept so that no
// redelivery of a message with these settings can outlive it, one redrive
// from the dead-letter queue included when DeadLetterRetention is set: the
// RedriveLifetime plus a margin of a quarter of it (at least one hour),
// rounded up to a whole minute. It errs long on purpose: a record kept too
// long costs storage, a record dropped too early costs a second execution.
//
// timeout is the longest one receive's work may take: the function's
// timeout under Lambda (a consumer's longest run off it). RecordLifetime
// refuses, as a *SettingError naming the setting, settings SQS and Lambda
// do not accept (Validate), and settings that cannot be safe whatever the
// lifetime: a timeout that is not positive, a visibility timeout shorter
// than timeout (the message would show again, to another worker, while
// its first receive still runs; Lambda refuses such an event source
// mapping), and max receives under MinSafeMaxReceives (no retry).
//
// For AWS's defaults (4 days retention, 30 s visibility timeout, 5 receives,
// no batching window) the message lifetime is 96h2m30s and the record
// lifetime 120h4m; with a standard dead-letter queue keeping messages
// 14 days, the redrive lifetime is 432h2m30s and the record lifetime
// 540h4m.
func RecordLifetime(q Settings, timeout time.Duration) (time.Duration, error) {
	if err := q.Validate(); err != nil {
		return 0, err
	}
	switch {
	case timeout <= 0:
		return 0, invalid("Timeout", "timeout %s: want the function's timeout, the longest one receive's work may take", timeout)
	case q.VisibilityTimeout < timeout:
		return 0, invalid("VisibilityTimeout", "visibility timeout %s is shorter than the function's timeout %s: a message would show again, to another worker, while its first receive still runs (Lambda refuses such an event source); raise it to at least %s (AWS asks for 6 × the timeout + the batching window, %s)",
			q.VisibilityTimeout, timeout, timeout, 6*timeout+q.BatchingWindow)
	case q.MaxReceives < MinSafeMaxReceives:
		return 0, invalid("MaxReceives", "max receives %d leaves no retry: a message whose only receive fails (a crash, a timeout, a provider's 429) moves to the dead-letter queue with its work undone; raise it to at least %d (AWS recommends 5)",
			q.MaxReceives, MinSafeMaxReceives)
	}
	life := q.RedriveLifetime()
	margin := max(life/4, time.Hour)
	return (life + margin + time.Minute - 1).Truncate(time.Minute), nil
}

// CheckExpiry reports an error when expiry is shorter than the lifetime
// these settings need (RedriveLifetime: MessageLifetime, plus a redrive
// from the dead-letter queue when DeadLetterRetention is set), saying by
// how much.
func CheckExpiry(q Settings, expiry time.Duration) error {
	if err := q.Validate(); err != nil {
		return err
	}
	life := q.MessageLifetime()
	what := fmt.Sprintf("the message lifetime %s (retention %s + %d receives × (visibility %s + batching window %s))",
		life, q.Retention, q.MaxReceives, q.VisibilityTimeout, q.BatchingWindow)
	if q.DeadLetterRetention != 0 {
		kind, formula := "standard", "max(dead-letter retention, message lifetime) + message lifetime"
		if q.FIFO {
			kind, formula = "FIFO", "message lifetime + dead-letter retention + message lifetime"
		}
		what = fmt.Sprintf("the lifetime %s of a message redriven once from the %s dead-letter queue (%s; %s; dead-letter retention %s)",
			q.RedriveLifetime(), kind, formula, what, q.DeadLetterRetention)
	}
	if need := q.RedriveLifetime(); expiry < need {
		return fmt.Errorf("%w: record expiry %s is %s shorter than %s; raise the expiry or lower those settings",
			ErrInvalidSettings, expiry, need-expiry, what)
	}
	return nil
}
