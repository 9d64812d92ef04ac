package dynamostore

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

// conflictCode is the error code of a write that a global table with
// multi-Region strong consistency (MRSC) refuses because another Region is
// modifying the same item: "A write operation fails with a
// ReplicatedWriteConflictException when it attempts to modify an item that
// is already being modified in another Region. Writes that fail with the
// ReplicatedWriteConflictException can be retried and will succeed if the
// item is no longer being modified in another Region." (DynamoDB developer
// guide, How global tables work). The write was not applied.
const conflictCode = "ReplicatedWriteConflictException"

// conflicted reports DynamoDB's refusal of a write that conflicted with
// another Region's: *types.ReplicatedWriteConflictException, or any API
// error with its code.
func conflicted(err error) bool {
	var api smithy.APIError
	return errors.As(err, &api) && api.ErrorCode() == conflictCode
}

// retryConflicts is a per-request option of the writes fenced by the
// owner (Complete, Release, Extend): the SDK's standard retryer does not
// send a request again after a conflict (a 400 whose code it does not
// know), and this one does, within the request's attempts, since the
// write was not applied and a fenced write sent again is judged anew.
// A client whose retryer makes one attempt is left alone: it retries
// nothing. Claim is not retried: a claim refused by a conflict is another
// claimant at the key (idem.ErrWriteConflict), and its message is left to
// come back.
func retryConflicts(o *dynamodb.Options) {
	if o.Retryer == nil || o.Retryer.MaxAttempts() <= 1 {
		return
	}
	o.Retryer = retry.AddWithErrorCodes(o.Retryer, conflictCode)
}
