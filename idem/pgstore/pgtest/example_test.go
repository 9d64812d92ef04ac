package pgtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
)

// A test of your own against PostgreSQL: the shared pool, a table of the
// store's shape that the test's end drops, and the store on it.
func Example() {
	_ = func(t *testing.T) { // func TestSummarise(t *testing.T)
		t.Parallel()
		pool := pgtest.Pool(t) // skipped under -short, failed otherwise, when the server is not there
		table := pgtest.NewTable(t, pool)
		store, err := pgstore.New(pool, table)
		if err != nil {
			t.Fatal(err)
		}
		_ = store // hand it to handler.New, as in production
	}
}

// TableName names a table no other test uses.
func ExampleTableName() {
	a, b := pgtest.TableName(), pgtest.TableName()
	fmt.Println(strings.HasPrefix(a, "idem_test_"), a != b)
	// Output: true true
}
