package handler

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/idemq/idemq/queue"
)

// VisibilityChanger is the part of the SQS client WithBackoff calls.
// *sqs.Client satisfies it.
type VisibilityChanger interface {
	ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error)
}

var _ VisibilityChanger = (*sqs.Client)(nil)

// domains maps an AWS partition to the domain of its SQS endpoints.
var domains = map[string]string{
	"aws":        "amazonaws.com",
	"aws-us-gov": "amazonaws.com",
	"aws-cn":     "amazonaws.com.cn",
}

// queueURLFromARN derives a queue's URL from its ARN:
// arn:aws:sqs:REGION:ACCOUNT:NAME becomes
// https://sqs.REGION.amazonaws.com/ACCOUNT/NAME. Partitions other than aws,
// aws-us-gov and aws-cn are an error: give Config.QueueURL instead.
func queueURLFromARN(arn string) (string, error) {
	parts := strings.Split(arn, ":")
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "sqs" || parts[3] == "" || parts[4] == "" || parts[5] == "" {
		return "", fmt.Errorf("handler: %q is not an SQS queue ARN", arn)
	}
	domain, ok := domains[parts[1]]
	if !ok {
		return "", fmt.Errorf("handler: unknown partition %q in %q; use Config.QueueURL", parts[1], arn)
	}
	return fmt.Sprintf("https://sqs.%s.%s/%s/%s", parts[3], domain, parts[4], parts[5]), nil
}

// visibilityFor is the visibility timeout that brings a message back just
// after a lease ends: the lease's remaining time rounded up to a whole
// second, plus one, within SQS's 1 s to 12 h.
func visibilityFor(leaseUntil, now time.Time) int32 {
	left := leaseUntil.Sub(now)
	secs := int64((left+time.Second-1)/time.Second) + 1
	return int32(min(max(secs, 1), int64(queue.MaxVisibility/time.Second)))
}
