// Package pgtest connects tests to a PostgreSQL server and gives each test
// a table of its own: the store's own tests use it, and so can yours.
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		pool := pgtest.Pool(t)
//		table := pgtest.NewTable(t, pool)
//		...
//	}
//
// The server's URL comes from IDEMQ_TEST_POSTGRES_URL (in idemq's
// repository scripts/with-postgres.sh starts a server and sets it; any
// database the URL names will do, tables are made and dropped in it).
// When it is unset or
// nothing answers there, a test run with -short is skipped and any other
// test fails: a skipped test is not a passing one.
package pgtest
