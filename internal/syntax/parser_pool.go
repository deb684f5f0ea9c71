package syntax

import "sync"

// parserPool recycles parsers so that their scratch memory (token cache,
// binding stack, slice-building stacks) is reused across parses.
var parserPool = sync.Pool{New: func() any {
	p := new(parser)
	p.clearCache()
	return p
}}

func (p *parser) clearCache() {
	for i := range p.cache {
		p.cache[i] = cacheEntry{pos: -1}
	}
}

// maxPooledScratch bounds the string scratch buffer a pooled parser keeps.
const maxPooledScratch = 64 << 10

// release resets p and returns it to the pool.
func (p *parser) release() {
	p.reset()
	parserPool.Put(p)
}

// reset readies p for its next parse, dropping every reference into the
// finished tree and the source (a keeping parser's chunks are cleared, not
// dropped). Resetting a parser that has not parsed since changes nothing, so
// what the last parse taught the arena about chunk sizes survives.
func (p *parser) reset() {
	if !p.parsed {
		return
	}
	p.parsed = false
	p.ar.reset(len(p.src))
	p.src, p.opts, p.pos, p.ctx, p.depth, p.h, p.nodes = "", ParseOptions{}, 0, pctx{}, 0, 0, 0
	clear(p.binds[:cap(p.binds)]) // names are substrings of the old source
	p.binds = p.binds[:0]
	p.scopes = p.scopes[:0]
	p.byName = nil
	p.clearCache()
	p.sbuf = p.sbuf[:0]
	if cap(p.sbuf) > maxPooledScratch {
		p.sbuf = nil
	}
}
