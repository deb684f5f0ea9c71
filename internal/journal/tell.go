package journal

// Telling onFinish of a finished row happens after the writer lets go of
// the write lock (wmu), under a lock of its own (tmu) taken before wmu is
// released: rows are told of in seq order as before, while the next
// writer already numbers and logs its own row. The hook (the kernel
// encodes and publishes the row's events) was most of the time wmu was
// held, and under many connections wmu was half of all lock waiting.

// toTell is the row onFinish is to be told of, e finished now with its
// id and seqs set, or nil when no hook is set. Call with wmu held.
func (d *DB) toTell(e *Entry, kind string, start, fin int64) *Entry {
	if d.onFinish == nil {
		return nil
	}
	c := *e
	c.Kind, c.StartNS, c.FinishNS, c.Finished, c.Head = kind, start, fin, true, Head(e.Src)
	return &c
}

// unlockTelling releases wmu and then tells onFinish of c (nil: no row),
// keeping the order in which writers held wmu.
func (d *DB) unlockTelling(c *Entry) {
	if c == nil {
		d.wmu.Unlock()
		return
	}
	fn := d.onFinish
	d.tmu.Lock()
	d.wmu.Unlock()
	defer d.tmu.Unlock()
	fn(c)
}

// toldAll waits until every row finished before now has been told of.
// Readers of the last seqs call it with wmu held, so that a seq they
// report has had its events published (as when they were published
// under wmu).
func (d *DB) toldAll() {
	d.tmu.Lock()
	//lint:ignore SA2001 an empty critical section: a barrier for the writer telling its row
	d.tmu.Unlock()
}
