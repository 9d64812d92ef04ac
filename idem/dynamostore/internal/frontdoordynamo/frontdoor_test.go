// Package frontdoordynamo runs the front door's suite
// (internal/frontdoorsuite) on DynamoDB Local: the front door and the
// worker's handler over one real table.
package frontdoordynamo

import (
	"testing"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/internal/frontdoorsuite"
)

func TestFrontDoorOnDynamoDB(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	frontdoorsuite.Run(t, func(t *testing.T) frontdoor.Store {
		store, err := dynamostore.New(client, dynamotest.NewTable(t, client))
		if err != nil {
			t.Fatal(err)
		}
		return store
	})
}
