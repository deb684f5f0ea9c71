package lsp

import (
	"errors"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/lsp/protocol"
)

// errTooLarge is a document past MaxDocumentBytes.
// (The number is written out, not formatted by a package initialiser at
// every start of shoal; TestTooLargeNamesItsLimit holds it to the limit.)
var errTooLarge = errors.New("document exceeds 4194304 bytes")

// document is one open text: its bytes, the byte offset where each line
// starts, and what the analysis made of the current version (nil until a
// request needs it).
type document struct {
	uri     string
	version int32
	text    string
	lines   []int // byte offset of each line's start
	tooBig  bool
	an      *analysis
	lastIdx *index // the last version that parsed, for completion while typing
	// base is the last analysis that parsed, kept while later versions
	// are not analysed or do not parse, and edit the one range all the
	// changes since then fall in: the next analysis starts from them when
	// it can.
	base *analysis
	edit edit
}

func newDocument(uri string, version int32, text string) *document {
	d := &document{uri: uri, version: version}
	d.set(text)
	return d
}

// set replaces the text (or drops it when it is too large).
func (d *document) set(text string) {
	if len(text) > MaxDocumentBytes {
		d.drop()
		return
	}
	d.an, d.base = nil, nil
	d.text, d.tooBig = text, false
	d.lines = d.lines[:0]
	d.lines = append(d.lines, 0)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			d.lines = append(d.lines, i+1)
		}
	}
}

// drop forgets the text of a document past MaxDocumentBytes.
func (d *document) drop() {
	d.text, d.lines, d.tooBig, d.an, d.lastIdx, d.base = "", []int{0}, true, nil, nil, nil
}

// apply applies one content change: a range replaced, or the whole text.
func (d *document) apply(ch protocol.TextDocumentContentChangeEvent) error {
	if ch.Range == nil {
		d.set(ch.Text)
		return nil
	}
	if d.tooBig {
		return errTooLarge
	}
	start, end := d.offset(ch.Range.Start), d.offset(ch.Range.End)
	if end < start {
		return errors.New("change range ends before it starts")
	}
	if len(d.text)-(end-start)+len(ch.Text) > MaxDocumentBytes {
		d.drop()
		return errTooLarge
	}
	prev, base, since := d.an, d.base, d.edit
	d.set(d.text[:start] + ch.Text + d.text[end:])
	e := edit{start: start, end: end, n: len(ch.Text)}
	switch {
	case d.tooBig:
	case prev != nil && prev.prog != nil:
		d.base, d.edit = prev, e
	case base != nil:
		d.base, d.edit = base, since.then(e)
	}
	return nil
}

// lineEnd is the byte offset where line i's content ends (before its
// newline).
func (d *document) lineEnd(i int) int {
	if i+1 < len(d.lines) {
		return d.lines[i+1] - 1
	}
	return len(d.text)
}

// offset converts a protocol position (UTF-16 units) to a byte offset,
// clamped into the document: a line past the end is the end, a character
// past its line's end is the line's end, and a position inside a
// surrogate pair is the character's start.
func (d *document) offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(d.lines) {
		return len(d.text)
	}
	i, end := d.lines[line], d.lineEnd(line)
	want := int(p.Character)
	for units := 0; i < end; {
		r, size := utf8.DecodeRuneInString(d.text[i:end])
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > want {
			break
		}
		units += w
		i += size
	}
	return i
}

// position converts a byte offset to a protocol position; an offset
// inside a UTF-8 sequence counts the whole character before it.
func (d *document) position(off int) protocol.Position {
	off = max(0, min(off, len(d.text)))
	line := lineOf(d.lines, off)
	units := 0
	for i := d.lines[line]; i < off; {
		r, size := utf8.DecodeRuneInString(d.text[i:])
		if i+size > off {
			break
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return protocol.Position{Line: uint32(line), Character: uint32(units)}
}

// lineOf is the line holding byte offset off (binary search).
func lineOf(lines []int, off int) int {
	lo, hi := 0, len(lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// rangeOf converts a byte span to a protocol range.
func (d *document) rangeOf(start, end int) protocol.Range {
	return protocol.Range{Start: d.position(start), End: d.position(end)}
}
