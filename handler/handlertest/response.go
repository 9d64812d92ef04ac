package handlertest

import (
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
)

// ErrMalformedResponse means a partial batch response that Lambda treats as
// a failure of the whole batch: an empty item identifier, or one that names
// no message of the batch.
var ErrMalformedResponse = errors.New("handlertest: malformed partial batch response")

// Failures returns the ids of the messages the response asks to get back,
// as Lambda reads a response with ReportBatchItemFailures: an empty or nil
// list is full success; an empty identifier or one not in the batch is
// ErrMalformedResponse, and the whole batch comes back.
func Failures(event events.SQSEvent, resp events.SQSEventResponse) (map[string]bool, error) {
	ids := make(map[string]bool, len(event.Records))
	for _, m := range event.Records {
		ids[m.MessageId] = true
	}
	failed := make(map[string]bool, len(resp.BatchItemFailures))
	for _, f := range resp.BatchItemFailures {
		switch {
		case f.ItemIdentifier == "":
			return nil, fmt.Errorf("%w: empty itemIdentifier", ErrMalformedResponse)
		case !ids[f.ItemIdentifier]:
			return nil, fmt.Errorf("%w: itemIdentifier %q is not in the batch", ErrMalformedResponse, f.ItemIdentifier)
		}
		failed[f.ItemIdentifier] = true
	}
	return failed, nil
}
