package idemqenv_test

import (
	"fmt"

	"github.com/idemq/idemq/idemqenv"
)

func Example() {
	env := map[string]string{
		"IDEMQ_TABLE":         "idempotency",
		"IDEMQ_NAMESPACE":     "summarise",
		"IDEMQ_KEY_FIELDS":    "document_id,version",
		"IDEMQ_RECORD_EXPIRY": "541h15m0s",
	}
	s, err := idemqenv.Read(func(name string) string { return env[name] })
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Program, s.Store.Kind, s.Store.Table, s.Request.Namespace, s.Request.KeyFields, s.RecordExpiry, s.Backoff)

	// Every bad variable, in one error.
	env = map[string]string{"IDEMQ_STORE": "postgres", "IDEMQ_LEASE": "soon", "IDEMQ_KEY_FIELDS": "id", "IDEMQ_KEY_FIELD": "id"}
	_, err = idemqenv.Read(func(name string) string { return env[name] })
	fmt.Println(err)
	// Output:
	// worker dynamodb idempotency summarise [document_id version] 541h15m0s true
	// IDEMQ_LEASE="soon": not a Go duration (like 120h or 90s)
	// IDEMQ_TABLE is required with IDEMQ_STORE=postgres: the name of the PostgreSQL table of records
	// IDEMQ_STORE_URL is required; want a postgres:// URL with IDEMQ_STORE=postgres
	// IDEMQ_KEY_FIELDS: request: KeyFields: is set with KeyField: a key has one source
}
