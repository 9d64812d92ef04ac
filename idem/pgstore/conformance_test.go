package pgstore_test

import (
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
)

// Every store reads a record the same way.
var _ idemtest.Getter = (*pgstore.Store)(nil)

// Every store serves the idemq command (idem.Admin).
var _ idem.Admin = (*pgstore.Store)(nil)

func TestConformance(t *testing.T) {
	pool := pgtest.Pool(t)
	idemtest.Run(t, func(t *testing.T) idem.Store {
		return must(pgstore.New(pool, pgtest.NewTable(t, pool)))
	})
}
