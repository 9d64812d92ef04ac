package handler

import (
	"testing"
	"time"

	"github.com/idemq/idemq/idem"
)

var cacheNow = time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)

func done(v string) idem.Result {
	return idem.Result{Outcome: idem.Executed, Value: []byte(v), ExpiresAt: cacheNow.Add(time.Hour)}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := newCache(2, 10)
	c.put("a", "fa", done("1"))
	c.put("b", "fb", done("2"))
	if _, ok := c.get("a", cacheNow); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.put("c", "fc", done("3")) // evicts b
	for k, want := range map[idem.Key]bool{"a": true, "b": false, "c": true} {
		if _, ok := c.get(k, cacheNow); ok != want {
			t.Errorf("get(%s) ok = %v, want %v", k, ok, want)
		}
	}

	c.put("d", "fd", done("1234567890")) // 10 bytes: evicts the rest
	if n := c.len(); n != 1 {
		t.Errorf("%d entries after a large put, want 1", n)
	}
	c.put("e", "fe", done("12345678901")) // larger than the bound: not kept
	if _, ok := c.get("e", cacheNow); ok {
		t.Error("an entry over the byte bound was kept")
	}
	c.put("d", "fd2", done("x")) // replacing an entry keeps one
	if e, ok := c.get("d", cacheNow); !ok || string(e.value) != "x" || e.fingerprint != "fd2" || c.len() != 1 {
		t.Errorf("after replace: %+v %v (len %d)", e, ok, c.len())
	}

	var off *cache
	off.put("a", "", done("1"))
	if _, ok := off.get("a", cacheNow); ok {
		t.Error("a nil cache hit")
	}
}

// Powertools checks the cached record's expiry in both its editions: an
// entry must not outlive the record it copies.
func TestCacheHonoursRecordExpiry(t *testing.T) {
	t.Parallel()
	c := newCache(10, 100)
	c.put("a", "fa", done("1")) // expires at cacheNow + 1h
	if _, ok := c.get("a", cacheNow.Add(59*time.Minute)); !ok {
		t.Fatal("entry missing before its record expires")
	}
	if _, ok := c.get("a", cacheNow.Add(time.Hour)); ok {
		t.Fatal("entry served at its record's expiry")
	}
	if c.len() != 0 {
		t.Fatalf("an expired entry was kept: %d entries", c.len())
	}
	c.put("nox", "f", idem.Result{Outcome: idem.Replayed, Value: []byte("1")}) // no expiry known
	c.put("omit", "f", idem.Result{Outcome: idem.Replayed, Omitted: true, ExpiresAt: cacheNow.Add(time.Hour)})
	if c.len() != 0 {
		t.Fatalf("kept a result without an expiry or an omitted one: %d entries", c.len())
	}
}

// Neither the result put nor the one got may alias the cache's copy.
func TestCacheHandsOutCopies(t *testing.T) {
	t.Parallel()
	c := newCache(10, 100)
	res := done("abc")
	c.put("a", "fa", res)
	res.Value[0] = 'X' // the caller changes what it put
	got, _ := c.get("a", cacheNow)
	got.value[1] = 'Y' // and what it got
	again, _ := c.get("a", cacheNow)
	if string(again.value) != "abc" {
		t.Fatalf("cache holds %q, want abc: it shares memory with its callers", again.value)
	}
}
