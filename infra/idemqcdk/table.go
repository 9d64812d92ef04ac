package idemqcdk

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// The record table's attributes the table itself must know: the names
// idem/dynamostore uses by default (Powertools' names).
const (
	// KeyAttribute is the partition key, a string.
	KeyAttribute = "id"
	// ExpiryAttribute is the TTL attribute, in epoch seconds.
	ExpiryAttribute = "expiration"
)

// newTable is the record table: on-demand, TTL on ExpiryAttribute,
// point-in-time recovery, deletion protection, kept when the stack is
// deleted. See the package
// documentation for why it is a TableV2.
func newTable(scope constructs.Construct) awsdynamodb.TableV2 {
	return awsdynamodb.NewTableV2(scope, jsii.String("Table"), &awsdynamodb.TablePropsV2{
		PartitionKey: &awsdynamodb.Attribute{
			Name: jsii.String(KeyAttribute),
			Type: awsdynamodb.AttributeType_STRING,
		},
		Billing:             awsdynamodb.Billing_OnDemand(nil),
		TimeToLiveAttribute: jsii.String(ExpiryAttribute),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		DeletionProtection: jsii.Bool(true),
		RemovalPolicy:      awscdk.RemovalPolicy_RETAIN,
	})
}
