package bench

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// itemBytes is an item's size as DynamoDB bills and stores it: for each
// attribute the UTF-8 length of its name plus the size of its value. The
// Powertools side computes the same in bench/powertools/count.mjs.
func itemBytes(item map[string]types.AttributeValue) int {
	n := 0
	for name, v := range item {
		n += len(name) + valueBytes(v)
	}
	return n
}

// valueBytes is the size of one value: strings and binaries their length;
// a number about one byte per two significant digits plus one; booleans
// and nulls one byte; sets the sum of their elements; lists and maps 3
// bytes plus one byte per element and the elements (a map's names too).
func valueBytes(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberB:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return numberBytes(v.Value)
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		return sum(v.Value, func(s string) int { return len(s) })
	case *types.AttributeValueMemberBS:
		return sum(v.Value, func(b []byte) int { return len(b) })
	case *types.AttributeValueMemberNS:
		return sum(v.Value, numberBytes)
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueBytes(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := 3
		for k, e := range v.Value {
			n += 1 + len(k) + valueBytes(e)
		}
		return n
	}
	return 0
}

// sum adds up the sizes of a set's elements.
func sum[E any](vs []E, size func(E) int) int {
	n := 0
	for _, v := range vs {
		n += size(v)
	}
	return n
}

// numberBytes is a number's size: its significant digits (leading and
// trailing zeros trimmed), one byte per two, plus one.
func numberBytes(s string) int {
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, strings.SplitN(strings.ToLower(s), "e", 2)[0])
	digits = strings.Trim(digits, "0")
	return (len(digits)+1)/2 + 1
}

// writeUnits is what a write of an item of n bytes consumes: one unit per
// KB started, at least one.
func writeUnits(n int) float64 { return float64(max(1, (n+1023)/1024)) }
