package idem_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemjson"
	"github.com/idemq/idemq/idem/memstore"
)

func ExampleNaturalKey() {
	k, _ := idem.NaturalKey("summariser", "document", "4471", "version", "9")
	fmt.Println(k)
	// Output: summariser#document:4471:version:9
}

func ExampleDo() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	calls := 0
	generate := func(context.Context) ([]byte, error) {
		calls++
		return []byte("a summary"), nil
	}
	key, _ := idem.ClientKey("summariser", "request-42")
	for range 3 { // the same request, delivered three times
		r, err := idem.Do(context.Background(), store, key, "", generate)
		fmt.Println(r.Outcome, string(r.Value), err)
	}
	fmt.Println("calls:", calls)
	// Output:
	// executed a summary <nil>
	// replayed a summary <nil>
	// replayed a summary <nil>
	// calls: 1
}

// A long result is stored gzipped, with its encoding beside it, and
// replayed as the work returned it.
func ExampleDo_compressed() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	answer := bytes.Repeat([]byte("Light consists of rays differently refrangible. "), 100) // 4,800 bytes
	key, _ := idem.ClientKey("summariser", "request-44")
	for range 2 {
		r, _ := idem.Do(context.Background(), store, key, "", func(context.Context) ([]byte, error) { return answer, nil })
		rec, _, _ := store.Get(context.Background(), key)
		fmt.Println(r.Outcome, len(r.Value), bytes.Equal(r.Value, answer), rec.Encoding, len(rec.Result) < len(answer)/10)
	}
	// Output:
	// executed 4800 true gzip true
	// replayed 4800 true gzip true
}

func ExampleDo_inProgress() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	key, _ := idem.ClientKey("summariser", "request-43")
	// Another worker holds the key: it claimed it and is still working.
	_, _ = store.Claim(context.Background(), idem.ClaimRequest{
		Key: key, Owner: "another-worker", Now: time.Now(),
		LeaseUntil: time.Now().Add(time.Minute), ExpiresAt: time.Now().Add(time.Hour),
	})
	r, err := idem.Do(context.Background(), store, key, "", func(context.Context) ([]byte, error) {
		panic("not reached: the key is held")
	})
	switch r.Outcome {
	case idem.InProgress:
		fmt.Println("held by another worker; retry after its lease:", err == nil)
	default:
		fmt.Println(r.Outcome)
	}
	// Output: held by another worker; retry after its lease: true
}

func ExampleDo_payloadMismatch() {
	store, err := memstore.New()
	if err != nil {
		log.Fatal(err)
	}
	key, _ := idem.ClientKey("mailer", "welcome-7")
	a, _ := idemjson.Fingerprint([]byte(`{"to":"ada@example.com"}`))
	b, _ := idemjson.Fingerprint([]byte(`{"to":"bob@example.com"}`))
	send := func(context.Context) ([]byte, error) { return []byte("sent"), nil }
	_, _ = idem.Do(context.Background(), store, key, a, send)
	_, err = idem.Do(context.Background(), store, key, b, send)
	fmt.Println(err)
	// Output: idem: claim key "mailer#welcome-7": payload does not match the record's
}
