package idemqenv_test

import (
	"fmt"

	"github.com/idemq/idemq/idemqenv"
)

func Example() {
	env := map[string]string{
		idemqenv.Table:        "idempotency",
		idemqenv.Namespace:    "summarise",
		idemqenv.KeyFields:    "document_id,version",
		idemqenv.RecordExpiry: "541h15m0s",
	}
	s, err := idemqenv.Read(func(name string) string { return env[name] })
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Program, s.Store.Kind, s.Store.Table, s.Request.Namespace, s.Request.KeyFields, s.RecordExpiry, s.Backoff)

	// Every bad variable, in one error.
	env = map[string]string{idemqenv.Store: "postgres", idemqenv.Lease: "soon", idemqenv.KeyFields: "id", idemqenv.KeyField: "id"}
	_, err = idemqenv.Read(func(name string) string { return env[name] })
	fmt.Println(err)
	// Output:
	// worker dynamodb idempotency summarise [document_id version] 541h15m0s true
	// IDEMQ_LEASE="soon": not a Go duration (like 120h or 90s)
	// IDEMQ_TABLE is required with IDEMQ_STORE=postgres: the name of the PostgreSQL table of records
	// IDEMQ_STORE_URL is required; want a postgres:// URL with IDEMQ_STORE=postgres
	// IDEMQ_KEY_FIELDS: request: KeyFields: is set with KeyField: a key has one source
}
