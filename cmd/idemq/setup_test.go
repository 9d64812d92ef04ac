package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/dynamostore"
	"github.com/idemq/idemq/idem/dynamostore/dynamotest"
	"github.com/idemq/idemq/idem/pgstore"
	"github.com/idemq/idemq/idem/pgstore/pgtest"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/idem/redisstore/redistest"
	"github.com/idemq/idemq/internal/storekit"
)

// adminStore is a store the tests write records with, the command's way
// in beside.
type adminStore interface {
	idem.Store
	idem.Admin
}

// namespace is the tests' IDEMQ_NAMESPACE.
const namespace = "summarise"

// stores are the stores every command is tested on: each makes a fresh
// table (or key prefix) and returns the store on it and the IDEMQ_*
// variables that name it, as the worker would be given them.
var stores = []struct {
	name  string
	setup func(t *testing.T) (adminStore, map[string]string)
}{
	{"dynamodb", func(t *testing.T) (adminStore, map[string]string) {
		client := dynamotest.Client(t)
		table := dynamotest.NewTable(t, client)
		return must(dynamostore.New(client, table)), map[string]string{
			"IDEMQ_STORE": "dynamodb", "IDEMQ_TABLE": table, "IDEMQ_DYNAMODB_ENDPOINT": os.Getenv(dynamotest.EndpointEnv),
			"AWS_REGION": dynamotest.Region, "AWS_ACCESS_KEY_ID": "idemqlocal", "AWS_SECRET_ACCESS_KEY": "idemqlocal",
		}
	}},
	{"postgres", func(t *testing.T) (adminStore, map[string]string) {
		pool := pgtest.Pool(t)
		table := pgtest.NewTable(t, pool)
		return must(pgstore.New(pool, table)), map[string]string{
			"IDEMQ_STORE": "postgres", "IDEMQ_TABLE": table, "IDEMQ_STORE_URL": pgtest.URL(t),
		}
	}},
	{"redis", func(t *testing.T) (adminStore, map[string]string) {
		client := redistest.Client(t)
		// The worker's key prefix is IDEMQ_TABLE and a colon.
		table := strings.TrimSuffix(redistest.Prefix(t), ":")
		return must(redisstore.New(client, redisstore.WithPrefix(table+":"))), map[string]string{
			"IDEMQ_STORE": "redis", "IDEMQ_TABLE": table, "IDEMQ_STORE_URL": redistest.URL(t),
		}
	}},
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// bundle is one test's store, the command's environment and the time.
type bundle struct {
	store adminStore
	env   map[string]string
	now   time.Time
}

// eachStore runs fn on a bundle of each store, in parallel.
func eachStore(t *testing.T, fn func(t *testing.T, b *bundle)) {
	t.Helper()
	t.Parallel()
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			store, env := s.setup(t)
			env["IDEMQ_NAMESPACE"] = namespace
			fn(t, &bundle{store: store, env: env, now: time.Now()})
		})
	}
}

// result is what a run of the command did.
type result struct {
	code           int
	stdout, stderr string
}

// run runs the command with args, the bundle's environment and stdin.
func (b *bundle) run(t *testing.T, stdin io.Reader, args ...string) result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, stdin, &out, &errOut, func(k string) string { return b.env[k] })
	t.Logf("idemq %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.String(), errOut.String())
	return result{code, out.String(), errOut.String()}
}

// key is the stored key of the client's key k.
func key(k string) idem.Key { return must(idem.ClientKey(namespace, k)) }

// claim claims the client's key k at `at` with the lease given (0: none)
// and returns the owner.
func (b *bundle) claim(t *testing.T, k string, at time.Time, lease time.Duration) string {
	t.Helper()
	return b.claimKey(t, key(k), at, lease)
}

// claimKey claims the stored key k at `at` with the lease given (0:
// none) and returns the owner.
func (b *bundle) claimKey(t *testing.T, k idem.Key, at time.Time, lease time.Duration) string {
	t.Helper()
	owner := storekit.NewOwner()
	req := idem.ClaimRequest{Key: k, Owner: owner, Now: at, ExpiresAt: at.Add(time.Hour), Fingerprint: "fp-" + string(k)}
	if lease != 0 {
		req.LeaseUntil = at.Add(lease)
	}
	c, err := b.store.Claim(context.Background(), req)
	if err != nil || !c.Claimed {
		t.Fatalf("claim %s: %+v, %v", k, c, err)
	}
	return owner
}

// complete claims and completes the client's key k with result, stored
// in encoding, expiring after expiry.
func (b *bundle) complete(t *testing.T, k string, result []byte, encoding string, expiry time.Duration) string {
	t.Helper()
	owner := b.claim(t, k, b.now, time.Minute)
	if err := b.store.Complete(context.Background(), idem.Completion{Key: key(k), Owner: owner, Result: result, Encoding: encoding, ExpiresAt: b.now.Add(expiry)}); err != nil {
		t.Fatalf("complete %s: %v", k, err)
	}
	return owner
}

// get reads the record of the client's key k.
func (b *bundle) get(t *testing.T, k string) (idem.Record, bool) {
	t.Helper()
	rec, ok, err := b.store.Get(context.Background(), key(k))
	if err != nil {
		t.Fatalf("get %s: %v", k, err)
	}
	return rec, ok
}

// answer is a terminal's answer to the prompt; before gives it, run
// when the command reads the answer: between its read of the record and
// its delete.
type answer struct {
	text   string
	before func()
	r      io.Reader
}

func (a *answer) Read(p []byte) (int, error) {
	if a.r == nil {
		if a.before != nil {
			a.before()
		}
		a.r = strings.NewReader(a.text)
	}
	return a.r.Read(p)
}
