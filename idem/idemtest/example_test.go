package idemtest_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"log"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/memstore"
)

// A store's own test runs the suite, with a fresh, empty store for each
// of its subtests (for a database, a table of its own).
func Example() {
	_ = func(t *testing.T) { // func TestConformance(t *testing.T) in the store's package
		idemtest.Run(t, func(t *testing.T) idem.Store {
			s, err := memstore.New()
			if err != nil {
				t.Fatal(err)
			}
			return s
		})
	}
}

// Request is a claim the suite's cases make; a second claim of the key
// finds the first holding it.
func ExampleRequest() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	now := time.Date(2026, 12, 10, 12, 0, 0, 0, time.UTC)
	for _, owner := range []string{"worker-1", "worker-2"} {
		c, err := store.Claim(context.Background(), idemtest.Request("summariser#request-46", owner, now))
		fmt.Println(owner, "claimed:", c.Claimed, err)
	}
	// Output:
	// worker-1 claimed: true <nil>
	// worker-2 claimed: false <nil>
}

// Prose stands for a model's answer: the same bytes for the same length,
// compressing as prose does.
func ExampleProse() {
	answer := idemtest.Prose(64 << 10)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write(answer); err != nil {
		log.Fatal(err)
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(answer), bytes.Equal(answer, idemtest.Prose(64<<10)), float64(len(answer))/float64(z.Len()) > 2.5)
	// Output: 65536 true true
}
