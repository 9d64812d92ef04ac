package retry

import "github.com/aws/aws-sdk-go-v2/service/sqs"

// Once is the per-call option of every SQS call the producer and the
// consumer send again themselves: the SDK makes one attempt, whatever the
// client's retryer, so the caller's attempts are the only ones (not each
// of them times the SDK's). An error the SDK would have retried comes
// back wrapping *retry.MaxAttemptsError of the SDK.
func Once(o *sqs.Options) { o.RetryMaxAttempts = 1 }
