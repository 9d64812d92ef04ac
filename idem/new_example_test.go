package idem_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/memstore"
)

// NewConfig fixes the settings once, at start: a bad one is an error
// before the first request. The Config's Do then claims with them.
func ExampleNewConfig() {
	cfg, err := idem.NewConfig(idem.WithLease(2*time.Minute), idem.WithHeartbeat(time.Minute),
		idem.WithExpiry(7*24*time.Hour))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("lease:", cfg.Lease, "heartbeat:", cfg.Heartbeat, "expiry:", cfg.Expiry)

	store, _ := memstore.New()
	key, _ := idem.ClientKey("mailer", "welcome-7")
	r, err := cfg.Do(context.Background(), store, key, "", func(context.Context) ([]byte, error) {
		return []byte("sent"), nil
	})
	fmt.Println(r.Outcome, string(r.Value), err)

	_, err = idem.NewConfig(idem.WithLease(-time.Second))
	var e *idem.ConfigError
	if errors.As(err, &e) {
		fmt.Println("refused:", e.Field, e.Value)
	}
	// Output:
	// lease: 2m0s heartbeat: 1m0s expiry: 168h0m0s
	// executed sent <nil>
	// refused: Lease -1s
}

// A caller's own key, and what a bad one gets.
func ExampleClientKey() {
	k, err := idem.ClientKey("mailer", "welcome-7")
	fmt.Println(k, err)
	_, err = idem.ClientKey("mailer", "")
	fmt.Println(errors.Is(err, idem.ErrNoKey))
	// Output:
	// mailer#welcome-7 <nil>
	// true
}

// A scoped key keeps each caller's keys apart: the same key of two callers
// is two records.
func ExampleScopedKey() {
	a, _ := idem.ScopedKey("summarise", "acme", "req-7")
	b, _ := idem.ScopedKey("summarise", "globex", "req-7")
	fmt.Println(a)
	fmt.Println(b)
	ns, scope, value := a.Parts()
	fmt.Println(ns, scope, value)
	// Output:
	// summarise:acme#req-7
	// summarise:globex#req-7
	// summarise acme req-7
}
