package memstore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// The in-memory store keeps DynamoDB's semantics for one process: a demo,
// an example, a fast test. A second call with the same key replays.
func Example() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	key, _ := idem.ClientKey("mailer", "welcome-7")
	send := func(context.Context) ([]byte, error) {
		fmt.Println("sending the welcome mail")
		return []byte("sent"), nil
	}
	for range 2 {
		r, err := idem.Do(context.Background(), store, key, "", send)
		fmt.Println(r.Outcome, string(r.Value), err)
	}
	rec, _, _ := store.Get(context.Background(), key)
	fmt.Println(rec.Status)
	// Output:
	// sending the welcome mail
	// executed sent <nil>
	// replayed sent <nil>
	// COMPLETED
}

// A result over the store's limit settles the key without it, so the work
// does not run again.
func ExampleWithMaxResultBytes() {
	store, err := memstore.New(memstore.WithMaxResultBytes(4))
	if err != nil {
		log.Fatal(err)
	}
	key, _ := idem.ClientKey("report", "q3")
	big := func(context.Context) ([]byte, error) { return []byte("a long report"), nil }
	r, err := idem.Do(context.Background(), store, key, "", big)
	fmt.Println(r.Outcome, r.Omitted, err)
	r, err = idem.Do(context.Background(), store, key, "", big)
	fmt.Println(r.Outcome, r.Omitted, err)
	// Output:
	// executed true idem: complete key "report#q3": result too large to store: 13 bytes, the limit is 4
	// replayed true <nil>
}

// A write staged with the work is committed with its result, or not at
// all; Value reads it back.
func ExampleWrite() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	key, _ := idem.ClientKey("mailer", "welcome-8")
	_, err = idem.Do(context.Background(), store, key, "", func(ctx context.Context) ([]byte, error) {
		err := idem.Stage(ctx, memstore.Write(func(tx *memstore.Tx) error {
			tx.Put("welcome-8/sent", []byte("yes"))
			return nil
		}))
		return []byte("sent"), err
	})
	v, _ := store.Value("welcome-8/sent")
	fmt.Println(string(v), err)
	// Output: yes <nil>
}
