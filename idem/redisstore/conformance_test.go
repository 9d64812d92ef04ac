package redisstore_test

import (
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
)

// Every store reads a record the same way.
var _ idemtest.Getter = (*redisstore.Store)(nil)

// Every store serves the idemq command (idem.Admin).
var _ idem.Admin = (*redisstore.Store)(nil)

func TestConformance(t *testing.T) {
	client := ownDB(t, dbConformance)
	idemtest.Run(t, func(t *testing.T) idem.Store {
		return must(redisstore.New(client, redisstore.WithPrefix(redistest.Prefix(t))))
	})
}
