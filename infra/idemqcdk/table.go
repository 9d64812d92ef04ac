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
	// keyAttribute is the partition key, a string.
	keyAttribute = "id"
	// expiryAttribute is the TTL attribute, in epoch seconds.
	expiryAttribute = "expiration"
)

// tableProps are what every record table is: partition key "id",
// a string; on-demand; TTL on "expiration"; point-in-time recovery;
// deletion protection; kept when the stack is deleted.
var (
	recordKey = &awsdynamodb.Attribute{Name: jsii.String(keyAttribute), Type: awsdynamodb.AttributeType_STRING}
	recovery  = &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(true)}
)

// newRecordTable is the table of idempotency records (partition key
// keyAttribute, TTL on expiryAttribute, on-demand, point-in-time recovery,
// deletion protection, kept when the stack is deleted), as id in scope,
// of the kind s says
// (resolveTable): a TableV2 with multi-Region strong consistency when s
// has replicas; v0.2.0's TableV2 in the stack's region alone with
// s.keepV020; an awsdynamodb.Table otherwise. Each is tableProps. All
// three render their table as the construct path id/Resource, so the
// table keeps its logical id whatever its kind: CloudFormation then
// refuses a change of kind ("Update of resource type is not permitted")
// before it changes anything, rather than replacing the table.
func newRecordTable(scope constructs.Construct, id string, s settings) awsdynamodb.ITable {
	if len(s.replicas) == 0 && !s.keepV020 {
		return awsdynamodb.NewTable(scope, jsii.String(id), &awsdynamodb.TableProps{
			PartitionKey:                     recordKey,
			BillingMode:                      awsdynamodb.BillingMode_PAY_PER_REQUEST,
			TimeToLiveAttribute:              jsii.String(expiryAttribute),
			PointInTimeRecoverySpecification: recovery,
			DeletionProtection:               jsii.Bool(true),
			RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
		})
	}
	props := &awsdynamodb.TablePropsV2{
		PartitionKey:                     recordKey,
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		TimeToLiveAttribute:              jsii.String(expiryAttribute),
		PointInTimeRecoverySpecification: recovery,
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
	}
	if len(s.replicas) > 0 {
		// An MRSC table keeps no TTL (DynamoDB developer guide, How
		// global tables work): expired records stay until deleted (a
		// claim takes them over all the same; idemq purge removes them),
		// and the worker is told (envDynamoDBStrong), as CheckTable is.
		props.TimeToLiveAttribute = nil
		props.MultiRegionConsistency = awsdynamodb.MultiRegionConsistency_STRONG
		var replicas []*awsdynamodb.ReplicaTableProps
		for _, r := range s.replicas {
			replicas = append(replicas, &awsdynamodb.ReplicaTableProps{Region: jsii.String(r)})
		}
		props.Replicas = &replicas
		if s.witness != "" {
			props.WitnessRegion = jsii.String(s.witness)
		}
	}
	return awsdynamodb.NewTableV2(scope, jsii.String(id), props)
}
