package dynamoenv_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore/dynamoenv"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/stores"
)

// The opener opens IDEMQ_TABLE at IDEMQ_DYNAMODB_ENDPOINT (DynamoDB
// Local): a record claimed through it is read back by another client.
func TestOpener(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	table := dynamotest.NewTable(t, client)
	cfg := aws.Config{Region: dynamotest.Region, Credentials: credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", "")}
	s := stores.Settings{Kind: stores.DynamoDB, Table: table, DynamoDBEndpoint: os.Getenv(dynamotest.EndpointEnv)}
	st, closeStore, err := stores.Open(context.Background(), s, stores.Config{AWS: func(context.Context) (aws.Config, error) { return cfg, nil }, Connections: 3},
		dynamoenv.Opener())
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	now := time.Now()
	if _, err := st.Claim(context.Background(), idem.ClaimRequest{Key: "ns#k", Owner: "o", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := st.Get(context.Background(), "ns#k")
	if err != nil || !ok || rec.Owner != "o" {
		t.Errorf("record %+v, %v, %v; want the claim", rec, ok, err)
	}

	if _, _, err := dynamoenv.Opener().Open(context.Background(), s, stores.Config{}); err == nil || !strings.Contains(err.Error(), "AWS") {
		t.Errorf("no AWS configuration: %v; want an error saying so", err)
	}
}

// IDEMQ_DYNAMODB_MULTI_REGION_STRONG opens the store for a table with
// multi-Region strong consistency: a completion with staged writes, which
// such a table cannot commit, is refused before it is sent.
func TestOpenerMultiRegionStrong(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	table := dynamotest.NewTable(t, client)
	cfg := aws.Config{Region: dynamotest.Region, Credentials: credentials.NewStaticCredentialsProvider("idemqlocal", "idemqlocal", "")}
	open := func(strong bool) stores.Records {
		s := stores.Settings{Kind: stores.DynamoDB, Table: table, DynamoDBEndpoint: os.Getenv(dynamotest.EndpointEnv), DynamoDBStrong: strong}
		st, closeStore, err := stores.Open(context.Background(), s, stores.Config{AWS: func(context.Context) (aws.Config, error) { return cfg, nil }, Connections: 3},
			dynamoenv.Opener())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(closeStore)
		return st
	}
	for _, strong := range []bool{true, false} {
		st := open(strong)
		now := time.Now()
		key := idem.Key(fmt.Sprintf("ns#strong-%v", strong))
		if _, err := st.Claim(context.Background(), idem.ClaimRequest{Key: key, Owner: "o", Now: now, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		write := types.TransactWriteItem{Put: &types.Put{TableName: aws.String(table), Item: map[string]types.AttributeValue{
			"id": &types.AttributeValueMemberS{Value: "side-" + string(key)}}}}
		err := st.Complete(context.Background(), idem.Completion{Key: key, Owner: "o", ExpiresAt: now.Add(time.Hour), Writes: []any{write}})
		if refused := errors.Is(err, idem.ErrUnsupportedWrite); refused != strong {
			t.Errorf("IDEMQ_DYNAMODB_MULTI_REGION_STRONG=%v: a completion with a staged write answered %v; want it refused: %v", strong, err, strong)
		}
	}
}
