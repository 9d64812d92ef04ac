// Package testenv is what the packages that connect tests to a server
// (pgtest, redistest) share: the server's URL from the environment, and
// the rule that a missing server skips a test only under -short.
package testenv

import (
	"os"
	"sync"
	"testing"
)

// The variables the test servers (scripts/with-*.sh) export where they
// listen; each is declared here once. DynamoDB Local's is the worker's
// own setting, idemqenv.DynamoDBEndpoint.
const (
	PostgresURL = "IDEMQ_TEST_POSTGRES_URL" // scripts/with-postgres.sh
	RedisURL    = "IDEMQ_TEST_REDIS_URL"    // scripts/with-redis.sh
	S3Endpoint  = "IDEMQ_TEST_S3_ENDPOINT"  // scripts/with-s3.sh (moto's S3)
	SQSEndpoint = "IDEMQ_TEST_SQS_ENDPOINT" // scripts/with-sqs.sh (moto's SQS)
)

// URL returns the value of env, skipping the test under -short, and
// failing it otherwise with hint, when it is unset.
func URL(t testing.TB, env, hint string) string {
	t.Helper()
	url := os.Getenv(env)
	if url == "" {
		Unavailable(t, env+" is not set", hint)
	}
	return url
}

// Unavailable skips the test under -short and fails it otherwise, saying
// why and hint: a skipped test is not a passing one.
func Unavailable(t testing.TB, why, hint string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s; %s", why, hint)
	}
	t.Fatalf("%s; %s", why, hint)
}

var shared sync.Map // url → func() (any, error)

// Shared returns connect(url)'s value, made once per url for the whole
// test binary, and its error, remembered too.
func Shared[T any](url string, connect func(string) (T, error)) (T, error) {
	get, _ := shared.LoadOrStore(url, sync.OnceValues(func() (any, error) { return connect(url) }))
	v, err := get.(func() (any, error))()
	return v.(T), err
}
