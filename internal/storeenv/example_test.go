package storeenv_test

import (
	"context"
	"fmt"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/internal/storeenv"
)

func Example() {
	vars := map[string]string{storeenv.Store: "POSTGRES", storeenv.StoreURL: "postgresql://idemq:s3cret@db.internal:5432/app"}
	_, err := storeenv.Load(func(name string) string { return vars[name] })
	fmt.Println(err)

	vars = map[string]string{storeenv.Store: "memory"}
	s, err := storeenv.Load(func(name string) string { return vars[name] })
	if err != nil {
		panic(err)
	}
	st, closeStore, err := storeenv.Open(context.Background(), s)
	if err != nil {
		panic(err)
	}
	defer closeStore()
	_, found, err := st.Get(context.Background(), idem.Key("ns#order-1"))
	fmt.Println(s.Store, found, err)
	// Output:
	// IDEMQ_TABLE is required with IDEMQ_STORE=postgres: the name of the PostgreSQL table of records
	// memory false <nil>
}
