// Package frontdoordynamo runs the front door's suite
// (frontdoor/frontdoortest) on DynamoDB Local: the front door and the
// worker's handler over one real table.
package frontdoordynamo

import (
	"testing"

	"github.com/idemq/idemq/frontdoor"
	"github.com/idemq/idemq/frontdoor/frontdoortest"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

func TestFrontDoorOnDynamoDB(t *testing.T) {
	t.Parallel()
	client := dynamotest.Client(t)
	frontdoortest.Run(t, func(t *testing.T) frontdoor.Store {
		store, err := dynamostore.New(client, dynamotest.NewTable(t, client))
		if err != nil {
			t.Fatal(err)
		}
		return store
	})
}
