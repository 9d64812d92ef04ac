package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemq/idemq/idem"
	"github.com/idemq/idemq/idem/idemtest"
	"github.com/idemq/idemq/idem/redisstore"
	"github.com/idemq/idemq/internal/netfault"
	"github.com/idemq/idemq/internal/storekit"
)

// A server that does not answer is an *idem.Error for the key, not a
// lost lease; idem.Do passes it on and runs nothing.
func TestUnreachableServer(t *testing.T) {
	t.Parallel()
	addr := netfault.ClosedAddr(t)
	client := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: 1, DialTimeout: 2 * time.Second})
	defer client.Close()
	idemtest.Unreachable(t, must(redisstore.New(client)))
}

// A claim or a completion whose answer is lost with its connection was
// applied; go-redis sends it again, and the script finds it applied by the
// same owner: a success, not a key stuck until its lease passes. The
// connection goes through a proxy that cuts it after the server answered,
// before the client reads the answer.
func TestLostAnswers(t *testing.T) {
	b := setup(t)
	p := netfault.New(t, serverAddr(t))
	client := newClient(t, p.Addr(), func(o *redis.Options) { o.PoolSize = 1 })
	cut := must(redisstore.New(client, redisstore.WithPrefix(b.store.Key(""))))
	// Load the scripts first, so that each write is one exchange.
	idemtest.RoundTrips(t, cut, func() int64 { return 0 })
	idemtest.LostAnswers(t, cut, b.store, p.DropNextReply)
	if p.Dropped() != 2 {
		t.Fatalf("the proxy cut %d connections, want 2", p.Dropped())
	}
}

func TestResultOverTheLimit(t *testing.T) {
	b := setup(t, redisstore.WithMaxResultBytes(10))
	idemtest.ResultLimit(t, b.store, 10)
}

func TestStagedWritesAreUnsupported(t *testing.T) {
	b := setup(t)
	owner := idemtest.MustClaim(t, b.store, "t#staged", b.now)
	err := b.store.Complete(context.Background(), idem.Completion{Key: "t#staged", Owner: owner, Result: []byte("r"), ExpiresAt: b.now.Add(time.Hour), Writes: []any{"SET x 1"}})
	if !errors.Is(err, idem.ErrUnsupportedWrite) {
		t.Fatalf("err %v, want idem.ErrUnsupportedWrite", err)
	}
	if rec, _ := idemtest.MustGet(t, b.store, "t#staged"); rec.Status != idem.StatusInProgress || rec.Owner != owner {
		t.Fatalf("record %+v, want the claim untouched", rec)
	}
}

// A key the store would use that holds something else, written by other
// code: every operation is ErrKeySpace in an *idem.Error, and the value is
// left as it was.
func TestForeignKeys(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	str, hash := b.store.Key("t#string"), b.store.Key("t#hash")
	if err := b.client.Set(ctx, str, "theirs", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if err := b.client.HSet(ctx, hash, "name", "theirs").Err(); err != nil {
		t.Fatal(err)
	}
	for _, key := range []idem.Key{"t#string", "t#hash"} {
		_, err := b.store.Claim(ctx, idemtest.Request(key, storekit.NewOwner(), b.now))
		var ie *idem.Error
		if !errors.Is(err, redisstore.ErrKeySpace) || !errors.As(err, &ie) || ie.Key != key || idem.Retryable(err) {
			t.Fatalf("claim of %s: %v, want redisstore.ErrKeySpace in an *idem.Error, not retryable", key, err)
		}
		if _, _, err := b.store.Get(ctx, key); key == "t#hash" && !errors.Is(err, redisstore.ErrKeySpace) {
			t.Fatalf("get of %s: %v, want redisstore.ErrKeySpace", key, err)
		}
	}
	if v, _ := b.client.Get(ctx, str).Result(); v != "theirs" {
		t.Fatalf("the string is now %q", v)
	}
	if v, _ := b.client.HGetAll(ctx, hash).Result(); len(v) != 1 || v["name"] != "theirs" {
		t.Fatalf("the hash is now %v", v)
	}
}

// The key's Redis expiry is the record's, in whole seconds rounded up,
// from the claim and again from the completion.
func TestRedisExpiryIsTheRecords(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	req := idemtest.Request("t#ttl", storekit.NewOwner(), b.now)
	req.ExpiresAt = b.now.Add(time.Hour + 300*time.Millisecond)
	if _, err := b.store.Claim(ctx, req); err != nil {
		t.Fatal(err)
	}
	wantExpiry := func(want time.Time) {
		t.Helper()
		ms, err := b.client.Do(ctx, "PEXPIRETIME", b.store.Key("t#ttl")).Int64()
		if err != nil {
			t.Fatal(err)
		}
		if got := time.UnixMilli(ms); !got.Equal(want) {
			t.Fatalf("Redis expiry %s, want %s", got, want)
		}
	}
	wantExpiry(b.now.Add(time.Hour + time.Second))
	if err := b.store.Complete(ctx, idem.Completion{Key: "t#ttl", Owner: req.Owner, Result: []byte("r"), ExpiresAt: b.now.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	wantExpiry(b.now.Add(2 * time.Hour))
}

// One retry layer: a completion against a Redis that never gets the
// completing script (the proxy cuts the connection as it goes out) costs
// the client's attempts, 1 + MaxRetries (go-redis's default 3), and no
// more: idem.Do sends it once. The claim and the release after the failed
// completion go through, so the key is free again.
func TestCompletionRequestsWhileDown(t *testing.T) {
	b := setup(t)
	result := []byte("the answer of a completion while the store is down")
	var completions atomic.Int32
	p, err := netfault.Start(serverAddr(t), func(req []byte) netfault.Verdict {
		if bytes.Contains(req, result) {
			completions.Add(1)
			return netfault.Refuse
		}
		return netfault.Pass
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	client := newClient(t, p.Addr(), nil)
	store := must(redisstore.New(client, redisstore.WithPrefix(b.store.Key(""))))
	r, err := idem.Do(context.Background(), store, "t#down", "", func(context.Context) ([]byte, error) {
		return result, nil
	})
	if r.Outcome != idem.NotStored || err == nil || errors.Is(err, idem.ErrLeaseLost) {
		t.Fatalf("%+v, %v; want NotStored with the connection's error", r, err)
	}
	if n, want := completions.Load(), int32(1+client.Options().MaxRetries); n != want {
		t.Errorf("%d completing requests, want %d (one completion, go-redis's attempts)", n, want)
	}
	if _, ok := idemtest.MustGet(t, b.store, "t#down"); ok {
		t.Error("the claim was not released")
	}
}
