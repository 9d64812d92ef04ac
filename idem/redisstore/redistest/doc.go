// Package redistest connects tests to a Redis server and gives each test
// a key prefix of its own: the store's own tests use it, and so can
// yours.
//
//	func TestSomething(t *testing.T) {
//		t.Parallel()
//		client := redistest.Client(t)
//		store, err := redisstore.New(client, redisstore.WithPrefix(redistest.Prefix(t)))
//		...
//	}
//
// The server's URL comes from IDEMQ_TEST_REDIS_URL (in idemq's repository
// scripts/with-redis.sh starts a server and sets it). When it is unset or
// nothing answers there, a test run with -short is skipped and any other
// test fails: a skipped test is not a passing one.
package redistest
