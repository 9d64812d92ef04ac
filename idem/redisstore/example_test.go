package redisstore_test

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"crypto/rand"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
)

// TestMain skips the example that needs a server under -short when there
// is none, as the tests skip themselves; without -short it runs and fails.
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() && os.Getenv(redistest.URLEnv) == "" {
		_ = flag.Set("test.skip", "^Example$")
	}
	os.Exit(m.Run())
}

func Example() {
	ctx := context.Background()
	opts, err := redis.ParseURL(os.Getenv("IDEMQ_TEST_REDIS_URL")) // your REDIS_URL
	if err != nil {
		fmt.Println(err)
		return
	}
	client := redis.NewClient(opts)
	defer client.Close()
	store, err := redisstore.New(client, redisstore.WithPrefix("example:"+rand.Text()+":"))
	if err != nil {
		log.Fatal(err)
	}

	work := func(context.Context) ([]byte, error) {
		fmt.Println("calling the provider")
		return []byte("summary #1"), nil
	}
	for range 2 { // a message and its redelivery
		r, err := idem.Do(ctx, store, "order#1", "", work)
		fmt.Printf("%s: %s %v\n", r.Outcome, r.Value, err)
	}
	// Output:
	// calling the provider
	// executed: summary #1 <nil>
	// replayed: summary #1 <nil>
}

func ExampleStore_Key() {
	store, err := redisstore.New(redis.NewClient(&redis.Options{}), redisstore.WithPrefix("orders:idem:"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(store.Key("order#1"))
	// Output:
	// orders:idem:order#1
}
