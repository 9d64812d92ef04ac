package redisstore_test

import (
	"testing"

	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
)

// A new key costs a claim and a completion, one script each; a duplicate
// costs the claim alone, which brings back the stored result or the
// holder's lease. docs/stores.md quotes these counts. A script is one
// EVALSHA once the server has it: the first run of each on a server is an
// EVALSHA answered NOSCRIPT, then an EVAL.
func TestRoundTrips(t *testing.T) {
	t.Parallel()
	commands := &counter{}
	client := newClient(t, "", nil)
	client.AddHook(commands)
	store := must(redisstore.New(client, redisstore.WithPrefix(redistest.Prefix(t))))
	got := idemtest.RoundTrips(t, store, commands.take)
	if want := (idemtest.Trips{NewKey: 2, Duplicate: 1, DuplicateInProgress: 1}); got != want {
		t.Errorf("commands %+v, want %+v", got, want)
	}
}
