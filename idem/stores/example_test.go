package stores_test

import (
	"context"
	"fmt"

	"github.com/idemq/idemq/idem/stores"
)

func ExampleOpen() {
	// The memory store needs no opener; the others take theirs, from
	// their stores' modules: dynamoenv.Opener(), pgenv.Opener(),
	// redisenv.Opener().
	st, closeStore, err := stores.Open(context.Background(), stores.Settings{Kind: stores.Memory}, stores.Config{})
	if err != nil {
		panic(err)
	}
	defer closeStore()
	fmt.Printf("%T\n", st)

	_, _, err = stores.Open(context.Background(), stores.Settings{Kind: stores.Redis, URL: "redis://:s3cret@cache:6379/0"}, stores.Config{})
	fmt.Println(err)
	// Output:
	// *memstore.Store
	// IDEMQ_STORE=redis: this program was built without that store: pass its opener, redisenv.Opener() (github.com/idemq/idemq/idem/redisstore/redisenv), where it opens the store
}

func ExampleShowURL() {
	fmt.Println(stores.ShowURL("IDEMQ_STORE_URL", "postgres://app:s3cret@db:5432/jobs?sslmode=require"))
	// Output: IDEMQ_STORE_URL=postgres://app:xxxxx@db:5432/jobs?sslmode=xxxxx
}
