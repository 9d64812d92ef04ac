package redisenv_test

import (
	"context"
	"fmt"

	"github.com/idemq/idemq/idem/redisstore/redisenv"
	"github.com/idemq/idemq/idem/stores"
)

// The worker's settings name a Redis server and a key prefix; the opener
// makes the store without a round trip (the first claim is the first).
// A URL the client cannot read is refused without showing its password.
func Example() {
	settings := stores.Settings{Kind: stores.Redis, URL: "redis://:secret@127.0.0.1:6379/0", Table: "idemq"}
	store, closeStore, err := stores.Open(context.Background(), settings, stores.Config{Connections: 10}, redisenv.Opener())
	if err != nil {
		panic(err)
	}
	defer closeStore()
	fmt.Printf("%T\n", store)

	settings.URL = "redis://:secret@127.0.0.1:port/0"
	_, _, err = stores.Open(context.Background(), settings, stores.Config{}, redisenv.Opener())
	fmt.Println(err != nil)
	// Output:
	// *redisstore.Store
	// true
}
