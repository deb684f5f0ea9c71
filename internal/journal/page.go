package journal

import "sync"

// A page of Query's entries is the largest allocation of a query (some
// 70 KiB for 100 entries); the kernel answers a journal.query from it and
// drops it, so that at a steady rate of queries the pages were most of
// the garbage the kernel's collector chased, and its collections the tail
// of journal.query. ReleasePage hands a page back for the next query.
var pagePool sync.Pool // of *[]Entry, emptied

// ReleasePage hands back a page that Query returned, for a later query to
// reuse. The caller must keep no reference to the page or its entries
// (nor their slices) afterwards. Pages of other origins are accepted too.
func ReleasePage(es []Entry) {
	if cap(es) == 0 || cap(es) > MaxQueryLimit+1 {
		return
	}
	es = es[:cap(es)]
	clear(es) // drop the rows' strings and slices
	es = es[:0]
	pagePool.Put(&es)
}

// newPage returns an empty page with room for n entries, reused when one
// was handed back.
func newPage(n int) []Entry {
	if n > 0 {
		if p, ok := pagePool.Get().(*[]Entry); ok && cap(*p) >= n {
			return (*p)[:0]
		}
	}
	return make([]Entry, 0, n)
}
