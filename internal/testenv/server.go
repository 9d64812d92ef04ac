package testenv

import (
	"os"
	"testing"
)

// ServerURL returns the value of env, skipping the test under -short, and
// failing it otherwise with hint, when it is unset.
func ServerURL(t testing.TB, env, hint string) string {
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
