package dynamostore_test

import (
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/internal/dynamotest"
)

func TestConformance(t *testing.T) {
	client := dynamotest.Client(t)
	idemtest.Run(t, func(t *testing.T) idem.Store {
		return dynamostore.New(client, dynamotest.NewTable(t, client))
	})
}
