package linearize_test

import (
	"fmt"
	"log"
	"testing"

	"github.com/idemq/idemq/idem/idemtest/linearize"
	"github.com/idemq/idemq/idem/memstore"
)

// A store's own test checks the histories it makes under concurrent
// clients, beside the conformance suite (idemtest.Run); with a fault
// layer between the store and its server (a proxy calling
// Faults.Decide), answers are lost after the server applied them.
func ExampleLinearizable() {
	_ = func(t *testing.T) { // func TestLinearizable(t *testing.T) in the store's tests
		store, err := memstore.New() // your store, on its server
		if err != nil {
			t.Fatal(err)
		}
		r := linearize.Linearizable(t, store, linearize.Config{LoseAnswers: 0.05})
		t.Log(r)
	}
}

// A short history of four clients on the in-memory store, recorded and
// checked: every answer is one the record could have given.
func ExampleRecord() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	h, err := linearize.Record(store, linearize.Config{Clients: 4, Keys: 3, Operations: 200})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Check(), h.Report.Verdict, h.Report.Operations >= 200)
	// Output: <nil> linearizable true
}
