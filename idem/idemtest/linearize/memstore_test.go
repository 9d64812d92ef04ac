package linearize_test

import (
	"testing"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest/linearize"
	"github.com/idemq/idemq/idem/internal/lintest"
	"github.com/idemq/idemq/idem/memstore"
)

// The in-memory store's histories under concurrent clients (its tests
// are here, not in its package, so that a user of memstore never needs
// the checker), checked against the model of a key's record, its answers lost after it applied the request
// (half then fail, half are sent again), with timeouts, pauses past the
// lease and clocks within the bound (make linearize adds a long run and
// clocks beyond the bound).
func TestMemstore(t *testing.T) {
	t.Parallel()
	lintest.Run(t, lintest.Store{
		Name: "memory",
		Open: func(t *testing.T, _ *linearize.Faults) idem.Store {
			s, err := memstore.New()
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	})
}
