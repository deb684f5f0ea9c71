package journal

// maxKeptTell bounds the told rows' buffer a written batch hands on for
// the next one to reuse (an Entry is a few hundred bytes).
const maxKeptTell = 256

// keptTell is tell emptied for the next batch to append to, or nil when it
// grew past maxKeptTell. A batch is told nothing more once it is written
// (writeBatch tells OnFinish of its rows before it finishes), so its
// buffer is free; handing it on saves every batch a new one (on a busy
// kernel nearly every batch is one row, so an allocation of an Entry a
// request). The rows are cleared so the buffer keeps nothing reachable.
func keptTell(tell []Entry) []Entry {
	if cap(tell) > maxKeptTell {
		return nil
	}
	clear(tell)
	return tell[:0]
}
