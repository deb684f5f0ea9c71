package journal

import "sync"

// A page of Query's entries is the largest allocation of a query (some
// 70 KiB for 100 entries); the kernel answers a journal.query from it and
// drops it, so that at a steady rate of queries the pages were most of
// the garbage the kernel's collector chased, and its collections the tail
// of journal.query. ReleasePage hands a page back for the next query.
// Since the thirteenth round the buffers the entries' values live in (the
// AST and effects arena, the outputs, the statuses, the effect kinds by
// mask) are pooled with the entries when the page comes from QueryPage
// and goes back by Page.Release: a query then allocates little beyond
// the driver's copy of each row's text.
var pagePool sync.Pool // of *Page, emptied

// Page is one page of entries, as QueryPage returns it, with the buffers
// its entries' values live in.
type Page struct {
	Entries []Entry

	raw      []byte   // the AST and effects arena's largest chunk
	outs     []Output // every entry's outputs
	statuses []int    // every entry's status
	kinds    map[int64][]string
}

// Bounds of what a pooled page keeps: a page past any of them is dropped
// rather than kept (its entries were bounded by MaxQueryLimit, its arena
// chunk by rawChunkMax unless one row is larger, its outputs by the rows'
// outputs, which nothing bounds to a few).
const (
	maxPooledOutputs = 4 * (MaxQueryLimit + 1)
	maxPooledKinds   = 64
)

// Release hands the page back for a later query to reuse. The caller must
// keep no reference to the page, its entries or anything of theirs (their
// strings, slices and statuses) afterwards.
func (p *Page) Release() {
	if p == nil || cap(p.Entries) == 0 || cap(p.Entries) > MaxQueryLimit+1 ||
		cap(p.raw) > rawChunkMax || cap(p.outs) > maxPooledOutputs || len(p.kinds) > maxPooledKinds {
		return
	}
	es := p.Entries[:cap(p.Entries)]
	clear(es) // drop the rows' strings and slices
	p.Entries = es[:0]
	outs := p.outs[:cap(p.outs)]
	clear(outs) // and the outputs' strings
	p.outs = outs[:0]
	p.raw = p.raw[:0]
	clear(p.kinds)
	pagePool.Put(p)
}

// ReleasePage hands back a page that Query returned, for a later query to
// reuse. The caller must keep no reference to the page or its entries
// (nor their slices) afterwards. Pages of other origins are accepted too.
// Only the entries are reused: the buffers their values live in are not
// known here (QueryPage and Page.Release reuse those as well).
func ReleasePage(es []Entry) {
	if cap(es) == 0 || cap(es) > MaxQueryLimit+1 {
		return
	}
	(&Page{Entries: es}).Release()
}

// getPage returns an empty page, reused when one was handed back, with
// room for n entries.
func getPage(n int) *Page {
	p, ok := pagePool.Get().(*Page)
	if !ok {
		p = &Page{}
	}
	if cap(p.Entries) < n {
		p.Entries = make([]Entry, 0, n)
	}
	return p
}
