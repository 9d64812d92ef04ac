package dynamotest_test

import (
	"fmt"
	"testing"

	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
)

// A test of your own against DynamoDB Local: a client, a table of the
// store's shape that the test's end deletes, and the store on it.
func Example() {
	_ = func(t *testing.T) { // func TestSummarise(t *testing.T)
		t.Parallel()
		client := dynamotest.Client(t) // skipped under -short, failed otherwise, when DynamoDB Local is not there
		table := dynamotest.NewTable(t, client)
		store, err := dynamostore.New(client, table)
		if err != nil {
			t.Fatal(err)
		}
		_ = store // hand it to handler.New, as in production
	}
}

// Suffix makes the names NewTable gives unique across parallel tests and
// runs.
func ExampleSuffix() {
	a, b := dynamotest.Suffix(), dynamotest.Suffix()
	fmt.Println(len(a), a != b)
	// Output: 12 true
}
