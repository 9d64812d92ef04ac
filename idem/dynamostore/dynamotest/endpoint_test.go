package dynamotest_test

import (
	"testing"

	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

// The test kit's endpoint variable is the worker's.
func TestEndpointEnv(t *testing.T) {
	if dynamotest.EndpointEnv != "IDEMQ_DYNAMODB_ENDPOINT" {
		t.Errorf("EndpointEnv is %s; the worker reads DynamoDB's endpoint from IDEMQ_DYNAMODB_ENDPOINT", dynamotest.EndpointEnv)
	}
}
