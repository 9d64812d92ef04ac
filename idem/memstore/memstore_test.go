package memstore_test

import (
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
)

func TestConformance(t *testing.T) {
	idemtest.Run(t, func(*testing.T) idem.Store { return memstore.New() })
}
