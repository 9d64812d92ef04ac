// Package dynamotest connects tests to DynamoDB Local and gives each test
// a table of its own (CreateTable makes one outside a test): the store's
// own tests use it, and so can yours.
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		client := dynamotest.Client(t)
//		table := dynamotest.NewTable(t, client)
//		...
//	}
//
// The endpoint comes from IDEMQ_DYNAMODB_ENDPOINT (in idemq's repository
// scripts/with-dynamodb.sh starts DynamoDB Local and sets it). When it is
// unset or nothing answers there, a test run with -short is skipped and
// any other test fails: a skipped test is not a passing one.
package dynamotest
