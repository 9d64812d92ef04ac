package idemtest

import (
	"sync"
	"testing"

	"github.com/idemq/idemq/internal/testenv"
)

// What connects a store's tests to its server (pgtest, redistest): the
// server's URL from the environment, the rule that a missing server skips
// a test only under -short, and one connection per server for a test
// binary.

// ServerURL returns the value of env, skipping the test under -short, and
// failing it otherwise with hint, when it is unset.
func ServerURL(t testing.TB, env, hint string) string {
	t.Helper()
	return testenv.ServerURL(t, env, hint)
}

// Unavailable skips the test under -short and fails it otherwise, saying
// why and hint: a skipped test is not a passing one.
func Unavailable(t testing.TB, why, hint string) {
	t.Helper()
	testenv.Unavailable(t, why, hint)
}

var shared sync.Map // url → func() (any, error)

// Shared returns connect(url)'s value, made once per url for the whole
// test binary, and its error, remembered too.
func Shared[T any](url string, connect func(string) (T, error)) (T, error) {
	get, _ := shared.LoadOrStore(url, sync.OnceValues(func() (any, error) { return connect(url) }))
	v, err := get.(func() (any, error))()
	return v.(T), err
}
