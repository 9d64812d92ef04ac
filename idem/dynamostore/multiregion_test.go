package dynamostore_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
)

// fakeTable answers DescribeTable with its description (key "id") and
// DescribeTimeToLive with TTL on "expiration" unless noTTL, counting the
// TTL reads. DynamoDB Local has no global tables: what CheckTable makes
// of replicas is checked against this fake only.
type fakeTable struct {
	desc     types.TableDescription
	noTTL    bool
	ttlReads int
}

func (f *fakeTable) CreateTable(context.Context, *dynamodb.CreateTableInput, ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error) {
	return nil, errors.New("fakeTable: CreateTable")
}

func (f *fakeTable) UpdateTimeToLive(context.Context, *dynamodb.UpdateTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error) {
	return nil, errors.New("fakeTable: UpdateTimeToLive")
}

func (f *fakeTable) DescribeTable(context.Context, *dynamodb.DescribeTableInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error) {
	d := f.desc
	d.TableName = aws.String("records")
	d.TableStatus = types.TableStatusActive
	d.KeySchema = []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}}
	d.AttributeDefinitions = []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeS}}
	return &dynamodb.DescribeTableOutput{Table: &d}, nil
}

func (f *fakeTable) DescribeTimeToLive(context.Context, *dynamodb.DescribeTimeToLiveInput, ...func(*dynamodb.Options)) (*dynamodb.DescribeTimeToLiveOutput, error) {
	f.ttlReads++
	d := &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}
	if !f.noTTL {
		d = &types.TimeToLiveDescription{AttributeName: aws.String("expiration"), TimeToLiveStatus: types.TimeToLiveStatusEnabled}
	}
	return &dynamodb.DescribeTimeToLiveOutput{TimeToLiveDescription: d}, nil
}

func replicas(regions ...string) []types.ReplicaDescription {
	var rs []types.ReplicaDescription
	for _, r := range regions {
		rs = append(rs, types.ReplicaDescription{RegionName: aws.String(r), ReplicaStatus: types.ReplicaStatusActive})
	}
	return rs
}

// CheckTable refuses a global table whose Regions can each grant a claim
// (multi-Region eventual consistency), saying why; it accepts one with
// strong consistency from a store made for it, without asking for TTL.
func TestCheckTableReplicas(t *testing.T) {
	t.Parallel()
	strong := dynamostore.WithMultiRegionStrong()
	three := replicas("us-east-1", "us-east-2", "us-west-2")
	witnessed := types.TableDescription{
		Replicas: replicas("eu-west-1", "eu-west-2"), MultiRegionConsistency: types.MultiRegionConsistencyStrong,
		GlobalTableVersion:   aws.String("2019.11.21"),
		GlobalTableWitnesses: []types.GlobalTableWitnessDescription{{RegionName: aws.String("eu-central-1"), WitnessStatus: types.WitnessStatusActive}},
	}
	for _, c := range []struct {
		name    string
		table   fakeTable
		opts    []dynamostore.Option
		refused []string // what the refusal says; nil: accepted
		ttl     bool     // TTL was read
	}{
		{name: "one Region", ttl: true},
		{name: "one Region without TTL", table: fakeTable{noTTL: true}, ttl: true, refused: []string{"TTL"}},
		{name: "one Region, made for MRSC, without TTL", table: fakeTable{noTTL: true}, opts: []dynamostore.Option{strong}},
		{name: "MREC, mode unset", table: fakeTable{desc: types.TableDescription{Replicas: three, GlobalTableVersion: aws.String("2019.11.21")}},
			refused: []string{"eventual consistency", "unset, so EVENTUAL", "both claim one key and both run the work", "us-east-2"}},
		{name: "MREC", table: fakeTable{desc: types.TableDescription{Replicas: three, MultiRegionConsistency: types.MultiRegionConsistencyEventual}},
			refused: []string{"eventual consistency", "MultiRegionConsistency EVENTUAL", "both run the work"}},
		{name: "MREC, store made for MRSC", opts: []dynamostore.Option{strong},
			table:   fakeTable{desc: types.TableDescription{Replicas: three, MultiRegionConsistency: types.MultiRegionConsistencyEventual}},
			refused: []string{"eventual consistency"}},
		{name: "legacy global table", table: fakeTable{desc: types.TableDescription{GlobalTableVersion: aws.String("2017.11.29")}},
			refused: []string{"eventual consistency", "2017.11.29"}},
		{name: "MRSC, store not made for it", table: fakeTable{desc: types.TableDescription{Replicas: three, MultiRegionConsistency: types.MultiRegionConsistencyStrong}},
			refused: []string{"strong consistency", "WithMultiRegionStrong", "transactions"}},
		{name: "MRSC", opts: []dynamostore.Option{strong}, table: fakeTable{noTTL: true,
			desc: types.TableDescription{Replicas: three, MultiRegionConsistency: types.MultiRegionConsistencyStrong}}},
		{name: "MRSC with a witness", opts: []dynamostore.Option{strong}, table: fakeTable{noTTL: true, desc: witnessed}},
		{name: "MRSC with a witness, store not made for it", table: fakeTable{desc: witnessed},
			refused: []string{"WithMultiRegionStrong", "eu-central-1 (witness)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := dynamostore.CheckTable(context.Background(), &c.table, "records", c.opts...)
			switch {
			case c.refused == nil && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refused != nil && !errors.Is(err, dynamostore.ErrTableMismatch):
				t.Fatalf("err %v, want ErrTableMismatch", err)
			}
			for _, want := range c.refused {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the refusal does not say %q: %v", want, err)
				}
			}
			if read := c.table.ttlReads > 0; read != c.ttl {
				t.Errorf("TTL read: %v, want %v", read, c.ttl)
			}
		})
	}
}

// A store made for an MRSC table refuses staged writes before anything
// is sent (the table would refuse the transaction after the work); a
// completion without them is sent as always.
func TestMultiRegionStrongRefusesStagedWrites(t *testing.T) {
	t.Parallel()
	api := &fakeAPI{err: &types.InternalServerError{Message: aws.String("sent")}}
	store := must(dynamostore.New(api, "t", dynamostore.WithMultiRegionStrong()))
	err := ops["complete with writes"](store)
	if !errors.Is(err, idem.ErrUnsupportedWrite) || idem.Retryable(err) || api.calls != 0 {
		t.Fatalf("staged writes on an MRSC store: %v after %d requests; want idem.ErrUnsupportedWrite before any", err, api.calls)
	}
	if !strings.Contains(err.Error(), "transactions") {
		t.Errorf("the refusal does not say why: %v", err)
	}
	if err := ops["complete"](store); api.calls != 1 || errors.Is(err, idem.ErrUnsupportedWrite) {
		t.Fatalf("a completion without staged writes: %v after %d requests; want it sent", err, api.calls)
	}
}
