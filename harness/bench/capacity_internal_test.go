package bench

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestItemBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		item map[string]types.AttributeValue
		want int
	}{
		{"string", map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "héllo"}}, 2 + 6},
		{"binary", map[string]types.AttributeValue{"data": &types.AttributeValueMemberB{Value: make([]byte, 10)}}, 4 + 10},
		// 1764072000: 10 digits, trailing zeros trimmed to 1764072 (7): 4 + 1 bytes.
		{"number", map[string]types.AttributeValue{"expiration": &types.AttributeValueMemberN{Value: "1764072000"}}, 10 + 5},
		{"number with point and exponent", map[string]types.AttributeValue{"n": &types.AttributeValueMemberN{Value: "-0012.50E3"}}, 1 + 3},
		{"bool and null", map[string]types.AttributeValue{"b": &types.AttributeValueMemberBOOL{Value: true}, "z": &types.AttributeValueMemberNULL{Value: true}}, 2 + 2},
		{"list and map", map[string]types.AttributeValue{"l": &types.AttributeValueMemberL{Value: []types.AttributeValue{
			&types.AttributeValueMemberS{Value: "ab"}, &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": &types.AttributeValueMemberS{Value: "v"}}},
		}}}, 1 + 3 + (1 + 2) + (1 + 3 + 1 + 1 + 1)},
		{"sets", map[string]types.AttributeValue{"ss": &types.AttributeValueMemberSS{Value: []string{"a", "bc"}}}, 2 + 3},
	} {
		if got := itemBytes(tc.item); got != tc.want {
			t.Errorf("%s: %d bytes, want %d", tc.name, got, tc.want)
		}
	}
}

func TestConsumed(t *testing.T) {
	t.Parallel()
	units := func(v float64) *types.ConsumedCapacity { return &types.ConsumedCapacity{CapacityUnits: aws.Float64(v)} }
	big := map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: strings.Repeat("x", 2000)}}
	for _, tc := range []struct {
		name        string
		out         any
		err         error
		write, read float64
	}{
		{"put", &dynamodb.PutItemOutput{ConsumedCapacity: units(1)}, nil, 1, 0},
		{"update", &dynamodb.UpdateItemOutput{ConsumedCapacity: units(2)}, nil, 2, 0},
		{"get", &dynamodb.GetItemOutput{ConsumedCapacity: units(0.5)}, nil, 0, 0.5},
		{"transaction", &dynamodb.TransactWriteItemsOutput{ConsumedCapacity: []types.ConsumedCapacity{*units(2), *units(4)}}, nil, 6, 0},
		{"failed condition, small holder", nil, &types.ConditionalCheckFailedException{Item: map[string]types.AttributeValue{"id": &types.AttributeValueMemberS{Value: "k"}}}, 1, 0},
		{"failed condition, 2 KB holder", nil, &types.ConditionalCheckFailedException{Item: big}, 2, 0},
		{"failed condition, no item", nil, &types.ConditionalCheckFailedException{}, 1, 0},
		{"other error", nil, errors.New("throttled"), 0, 0},
		{"no capacity returned", &dynamodb.PutItemOutput{}, nil, 0, 0},
	} {
		w, r := consumed(tc.out, tc.err)
		if w != tc.write || r != tc.read {
			t.Errorf("%s: %v write, %v read units; want %v, %v", tc.name, w, r, tc.write, tc.read)
		}
	}
}

func TestCapacityTable(t *testing.T) {
	t.Parallel()
	r := &Results{ScenarioSize: 100}
	for _, s := range Scenarios {
		for _, runner := range []string{RunnerIdemq, RunnerPowertools} {
			smp := Sample{Records: 100, Wall: time.Second, WriteUnits: 200, ReadUnits: 0, StoredBytes: 100 * 180, StoredItems: 100}
			if runner == RunnerPowertools {
				smp.StoredBytes = 100 * 250
			}
			m := Measurement{Runner: runner, Scenario: s, BatchSize: 100, Samples: []Sample{smp}}
			if s == First { // first delivery is read from the throughput runs
				r.Throughput = append(r.Throughput, m)
			} else {
				r.Scenarios = append(r.Scenarios, m)
			}
		}
	}
	var b strings.Builder
	capacityTable(&b, r)
	for _, want := range []string{
		"| first delivery | 2.00 | 2.00 | 0.00 | 0.00 | 180 | 250 | 1.250 | 1.250 |",
		"$0.625 per million write units",
		"costs $0.065 (idemq) and $0.081 (Powertools) more",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("capacity table lacks %q:\n%s", want, b.String())
		}
	}
}
