package lsp

import (
	"container/list"
	"time"
)

// lru is a cache bounded in entries and in the bytes of its keys, the
// least recently used entry evicted first. Each entry remembers when it
// was learnt, so a caller can ask again what may have changed since. Not
// safe for concurrent use (attachedState's lock guards it).
type lru[V any] struct {
	maxEntries, maxBytes int
	bytes                int
	order                *list.List // front: most recently used
	byKey                map[string]*list.Element
}

type lruEntry[V any] struct {
	key string
	val V
	at  time.Time
}

func newLRU[V any](maxEntries, maxBytes int) *lru[V] {
	return &lru[V]{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns the value for key, when it was learnt, and whether there is
// one.
func (c *lru[V]) get(key string) (V, time.Time, bool) {
	e, ok := c.byKey[key]
	if !ok {
		var zero V
		return zero, time.Time{}, false
	}
	c.order.MoveToFront(e)
	ent := e.Value.(*lruEntry[V])
	return ent.val, ent.at, true
}

// put stores val for key, evicting the least recently used entries past
// the bounds; a key larger than the byte bound is not stored.
func (c *lru[V]) put(key string, val V, at time.Time) {
	if len(key) > c.maxBytes {
		return
	}
	if e, ok := c.byKey[key]; ok {
		ent := e.Value.(*lruEntry[V])
		ent.val, ent.at = val, at
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&lruEntry[V]{key: key, val: val, at: at})
	c.bytes += len(key)
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		old := c.order.Back()
		ent := old.Value.(*lruEntry[V])
		c.order.Remove(old)
		delete(c.byKey, ent.key)
		c.bytes -= len(ent.key)
	}
}

// len is the number of entries.
func (c *lru[V]) len() int { return c.order.Len() }

// clear forgets every entry.
func (c *lru[V]) clear() {
	c.order.Init()
	clear(c.byKey)
	c.bytes = 0
}
