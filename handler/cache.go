package handler

import (
	"bytes"
	"container/list"
	"sync"
	"time"

	"github.com/idemq/idemq/idem"
)

// cache is a bounded LRU of completed keys' results (Config.CacheEntries), shared by
// the invocations of one container. An entry lasts no longer than the
// record it copies. A nil *cache is off: it misses and keeps nothing.
type cache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // front: most recently used; values are *entry
	entries    map[idem.Key]*list.Element
}

// entry is a cached result. get hands out copies of value, so no caller
// can change what the next one gets.
type entry struct {
	key         idem.Key
	fingerprint string
	value       []byte
	expiresAt   time.Time // the record's; zero: unknown, so not kept
}

func newCache(maxEntries, maxBytes int) *cache {
	return &cache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), entries: make(map[idem.Key]*list.Element)}
}

// get returns a copy of a completed key's entry, unless it is missing or
// its record has expired at now (then it is dropped).
func (c *cache) get(key idem.Key, now time.Time) (entry, bool) {
	if c == nil {
		return entry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return entry{}, false
	}
	e := el.Value.(*entry)
	if !now.Before(e.expiresAt) {
		c.remove(el)
		return entry{}, false
	}
	c.order.MoveToFront(el)
	out := *e
	out.value = bytes.Clone(e.value)
	return out, true
}

// put keeps a copy of a completed key's result until its record expires,
// evicting the least recently used entries beyond the bounds. A result
// larger than the byte bound, omitted, or without an expiry is not kept.
func (c *cache) put(key idem.Key, fingerprint string, res idem.Result) {
	if c == nil || len(res.Value) > c.maxBytes || res.Omitted || res.ExpiresAt.IsZero() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.remove(el)
	}
	e := &entry{key: key, fingerprint: fingerprint, value: bytes.Clone(res.Value), expiresAt: res.ExpiresAt}
	c.entries[key] = c.order.PushFront(e)
	c.bytes += len(e.value)
	for len(c.entries) > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.order.Back())
	}
}

// remove drops an entry; c.mu is held.
func (c *cache) remove(el *list.Element) {
	e := el.Value.(*entry)
	c.order.Remove(el)
	delete(c.entries, e.key)
	c.bytes -= len(e.value)
}

// len returns the number of entries.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
