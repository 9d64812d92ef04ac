package dynamostore_test

import (
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/idemtest"
)

// Every store reads a record the same way.
var _ idemtest.Getter = (*dynamostore.Store)(nil)

// Every store serves the idemq command (idem.Admin).
var _ idem.Admin = (*dynamostore.Store)(nil)

func TestConformance(t *testing.T) {
	client := dynamotest.Client(t)
	idemtest.Run(t, func(t *testing.T) idem.Store {
		return must(dynamostore.New(client, dynamotest.NewTable(t, client)))
	})
}

// A single-table design: the key in a sort key under one partition key
// value (Powertools' sort_key_attr and static_pk_value).
func TestConformanceSortKey(t *testing.T) {
	client := dynamotest.Client(t)
	idemtest.Run(t, func(t *testing.T) idem.Store {
		table := dynamotest.NewTable(t, client, dynamotest.WithKeyAttribute("pk"), dynamotest.WithSortKeyAttribute("sk"))
		return must(dynamostore.New(client, table,
			dynamostore.WithAttributes(dynamostore.Attributes{Key: "pk"}),
			dynamostore.WithSortKey("sk", "idempotency#worker")))
	})
}
