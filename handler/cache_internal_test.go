package handler

import (
	"testing"

	"github.com/idemq/idemq/idem"
)

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := newCache(2, 10)
	c.put("a", "fa", []byte("1"))
	c.put("b", "fb", []byte("2"))
	if _, _, ok := c.get("a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.put("c", "fc", []byte("3")) // evicts b
	for k, want := range map[idem.Key]bool{"a": true, "b": false, "c": true} {
		if _, _, ok := c.get(k); ok != want {
			t.Errorf("get(%s) ok = %v, want %v", k, ok, want)
		}
	}

	c.put("d", "fd", []byte("1234567890")) // 10 bytes: evicts the rest
	if n := c.len(); n != 1 {
		t.Errorf("%d entries after a large put, want 1", n)
	}
	c.put("e", "fe", []byte("12345678901")) // larger than the bound: not kept
	if _, _, ok := c.get("e"); ok {
		t.Error("an entry over the byte bound was kept")
	}
	c.put("d", "fd2", []byte("x")) // replacing an entry keeps one
	if v, fp, ok := c.get("d"); !ok || string(v) != "x" || fp != "fd2" || c.len() != 1 {
		t.Errorf("after replace: %q %q %v (len %d)", v, fp, ok, c.len())
	}

	var off *cache
	off.put("a", "", []byte("1"))
	if _, _, ok := off.get("a"); ok {
		t.Error("a nil cache hit")
	}
}
