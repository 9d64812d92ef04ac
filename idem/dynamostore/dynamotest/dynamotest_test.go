package dynamotest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

func TestNewTable(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	var table string
	t.Run("create", func(t *testing.T) {
		table = dynamotest.NewTable(t, client, dynamotest.WithKeyAttribute("pk"))
		out, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		ks := out.Table.KeySchema
		if len(ks) != 1 || aws.ToString(ks[0].AttributeName) != "pk" || ks[0].KeyType != types.KeyTypeHash {
			t.Errorf("key schema %+v, want the partition key pk", ks)
		}
		if out.Table.BillingModeSummary == nil || out.Table.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
			t.Errorf("billing %+v, want on-demand", out.Table.BillingModeSummary)
		}
		ttl, err := client.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(table)})
		if err != nil {
			t.Fatal(err)
		}
		if s := ttl.TimeToLiveDescription.TimeToLiveStatus; s != types.TimeToLiveStatusDisabled {
			t.Errorf("TTL %s, want it disabled: its sweeper would delete the expired records tests need", s)
		}
	})
	_, err := client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var missing *types.ResourceNotFoundException
	if !errors.As(err, &missing) {
		t.Fatalf("after the test: describe %s: %v, want it deleted", table, err)
	}
}

func TestTablesAreUnique(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	a, b := dynamotest.NewTable(t, client), dynamotest.NewTable(t, client)
	if a == b {
		t.Fatalf("two tables named %s", a)
	}
}
