package handler

import (
	"bytes"
	"container/list"
	"sync"

	"github.com/idemq/idemq/idem"
)

// cache is a bounded LRU of completed keys' results (WithCache), shared by
// the invocations of one container. A nil *cache is off: it misses and
// keeps nothing.
type cache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // front: most recently used; values are *entry
	entries    map[idem.Key]*list.Element
}

type entry struct {
	key         idem.Key
	fingerprint string
	value       []byte
}

func newCache(maxEntries, maxBytes int) *cache {
	return &cache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), entries: make(map[idem.Key]*list.Element)}
}

// get returns a completed key's result and the fingerprint it was stored
// with.
func (c *cache) get(key idem.Key) (value []byte, fingerprint string, ok bool) {
	if c == nil {
		return nil, "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil, "", false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*entry)
	return e.value, e.fingerprint, true
}

// put keeps a completed key's result, evicting the least recently used
// entries beyond the bounds. A result larger than the byte bound is not
// kept.
func (c *cache) put(key idem.Key, fingerprint string, value []byte) {
	if c == nil || len(value) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.bytes -= len(el.Value.(*entry).value)
		c.order.Remove(el)
		delete(c.entries, key)
	}
	e := &entry{key: key, fingerprint: fingerprint, value: bytes.Clone(value)}
	c.entries[key] = c.order.PushFront(e)
	c.bytes += len(value)
	for len(c.entries) > c.maxEntries || c.bytes > c.maxBytes {
		el := c.order.Back()
		old := el.Value.(*entry)
		c.order.Remove(el)
		delete(c.entries, old.key)
		c.bytes -= len(old.value)
	}
}

// len returns the number of entries.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
