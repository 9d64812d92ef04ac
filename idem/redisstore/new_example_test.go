package redisstore_test

import (
	"context"
	"log"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/handler"
	"github.com/idemq/idemq/idem/redisstore"
)

// New takes a go-redis client (a *redis.Client or a cluster's); it sends
// nothing, and WithPrefix keeps the records apart from the database's other
// keys. (Not run: it needs a server.)
func ExampleNew() {
	opts, err := redis.ParseURL(os.Getenv("REDIS_URL"))
	if err != nil {
		log.Fatal(err)
	}
	client := redis.NewClient(opts)
	defer client.Close()
	store, err := redisstore.New(client, redisstore.WithPrefix("orders:idem:"))
	if err != nil {
		log.Fatal(err) // a nil client, a bad option
	}
	type Order struct {
		ID string `json:"order_id" idemq:"key"`
	}
	h, err := handler.NewTyped(store, func(ctx context.Context, o Order) (string, error) {
		return "charged " + o.ID, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = h // lambda.Start(h), or consumer.New(sqsClient, queueURL, h)
}
