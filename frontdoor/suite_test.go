package frontdoor_test

import (
	"testing"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/frontdoor/frontdoortest"
	"github.com/idemq/idemq/idem/memstore"
)

// The front door's behaviour on memstore; on DynamoDB Local in
// idem/dynamostore/internal/frontdoordynamo.
func TestSuite(t *testing.T) {
	t.Parallel()
	frontdoortest.Run(t, func(*testing.T) frontdoor.Store { return must(memstore.New()) })
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
