package redistest_test

import (
	"testing"

	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
)

// A test of your own against Redis: the shared client, and the store
// under a key prefix no other test uses. It needs a server, so the
// example only compiles.
func Example() {
	_ = func(t *testing.T) { // func TestSummarise(t *testing.T)
		t.Parallel()
		client := redistest.Client(t) // skipped under -short, failed otherwise, when the server is not there
		store, err := redisstore.New(client, redisstore.WithPrefix(redistest.Prefix(t)))
		if err != nil {
			t.Fatal(err)
		}
		_ = store // hand it to handler.New, as in production
	}
}
