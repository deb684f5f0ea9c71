package kernel

import (
	"bytes"
	"reflect"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
	"github.com/shoalgo/shoal/proto"
)

// Session checkpoints (docs/kernel.md, "Restart"). After each statement
// the session compares its working directory, environment and bindings
// with its last checkpoint: values are immutable, so a binding whose value
// is the same one as before needs no look. Nothing changed: nothing more
// is done. Otherwise a new checkpoint is built on the statement's path,
// encoding only the bindings whose values changed (the others keep their
// encodings), and handed to the store's writer (checkpointstore.go),
// which writes it off the request path: a checkpoint lags its statement by
// at most the one write under way. A binding is kept when its value can be
// stored (its wire form carries no closure, command, stream, task, secret
// or elided part) and fits what the session's bound (Limits.
// CheckpointBytes) has left, in name order; the others are dropped and
// named. The transcript's own names (it, out) are not kept: out:N reads
// through the journal instead.

// checkpointer is one session's checkpoint state; only the session's turn
// holder uses it.
type checkpointer struct {
	store   *checkpointStore
	limit   int64
	dir     string
	env     []string
	entries map[string]ckptEntry
}

// ckptEntry is one binding as the last checkpoint saw it: wire is nil
// when it was dropped.
type ckptEntry struct {
	v       value.Value
	mutable bool
	wire    []byte
}

// transcriptName reports the bindings the transcript owns.
func transcriptName(name string) bool { return name == "it" || name == "out" }

// note checkpoints the session when its state changed since the last
// checkpoint.
func (c *checkpointer) note(key sessionKey, dir string, env []string, bs []eval.Binding) {
	if c == nil || !c.changed(dir, env, bs) {
		return
	}
	c.store.put(key, c.build(dir, env, bs))
}

// changed compares the state with the last checkpoint's.
func (c *checkpointer) changed(dir string, env []string, bs []eval.Binding) bool {
	if dir != c.dir || !equalStrings(env, c.env) {
		return true
	}
	n := 0
	for _, b := range bs {
		if transcriptName(b.Name) {
			continue
		}
		n++
		e, ok := c.entries[b.Name]
		if !ok || e.mutable != b.Mutable || !sameValue(e.v, b.Value) {
			return true
		}
	}
	return n != len(c.entries)
}

// build makes the checkpoint of the state, remembering it as the last.
func (c *checkpointer) build(dir string, env []string, bs []eval.Binding) *checkpointFile {
	// The directory and environment are converted to their stored form by
	// the writer (checkpointStore.write), off the statement's path.
	f := &checkpointFile{V: checkpointVersion, dir: dir, Dropped: []string{}}
	used := int64(len(dir))
	for _, kv := range env {
		used += int64(len(kv)) + 8
	}
	if used <= c.limit {
		f.env = env
	} else {
		f.Dropped = append(f.Dropped, "env")
		used = int64(len(dir))
	}
	entries := make(map[string]ckptEntry, len(bs))
	for _, b := range bs {
		if transcriptName(b.Name) {
			continue
		}
		e := ckptEntry{v: b.Value, mutable: b.Mutable}
		if old, ok := c.entries[b.Name]; ok && old.wire != nil && sameValue(old.v, b.Value) {
			e.wire = old.wire
		} else if !b.Callable {
			e.wire = storableWire(b.Value, c.limit-used)
		}
		if e.wire != nil && used+int64(len(e.wire)) > c.limit {
			e.wire = nil
		}
		entries[b.Name] = e
		if e.wire == nil {
			f.Dropped = append(f.Dropped, b.Name)
			continue
		}
		used += int64(len(e.wire)) + int64(len(b.Name))
		f.Bindings = append(f.Bindings, ckptBinding{Name: b.Name, Mutable: b.Mutable, Value: e.wire})
	}
	c.dir, c.env, c.entries = dir, env, entries
	return f
}

// notTagged are the wire tags of what a checkpoint cannot bring back.
var notTagged = [][]byte{
	[]byte(`"$":"` + proto.TagClosure + `"`), []byte(`"$":"` + proto.TagCmd + `"`),
	[]byte(`"$":"` + proto.TagStream + `"`), []byte(`"$":"` + proto.TagTask + `"`),
	[]byte(`"$":"` + proto.TagSecret + `"`), []byte(`"$":"` + proto.TagRef + `"`),
}

// storableWire is v's whole wire form when it is at most bound bytes and
// holds nothing a checkpoint cannot bring back, else nil. Keys and strings
// are escaped in wire JSON, so a tag's bytes occur only as a tag.
func storableWire(v value.Value, bound int64) []byte {
	switch v.Kind() {
	case value.KClosure, value.KTask, value.KStream, value.KSecret, value.KCommand, value.KNamespace:
		return nil
	}
	if bound <= 0 {
		return nil
	}
	w, ok := fullWire(v, int(min(bound, int64(proto.MaxFrame))))
	if !ok {
		return nil
	}
	for _, t := range notTagged {
		if bytes.Contains(w, t) {
			return nil
		}
	}
	return w
}

// sameValue reports whether a and b are the same value: the same pointer,
// or equal comparable scalars. Anything else counts as changed.
func sameValue(a, b value.Value) (same bool) {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch a.(type) {
	case value.Int, value.Float, value.Str, value.Bool, value.Path, value.Size, value.Duration,
		*value.List, *value.Record, *value.Table, *value.Outcome, *value.Error:
		// Comparable: == compares them (a pointer, a scalar), and is
		// false, never a panic, when b's type differs.
		return a == b
	}
	ta := reflect.TypeOf(a)
	if ta != reflect.TypeOf(b) {
		return false
	}
	switch ta.Kind() {
	case reflect.Pointer:
		return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
	case reflect.Slice:
		va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
		return va.Len() == vb.Len() && (va.Len() == 0 || va.Pointer() == vb.Pointer())
	}
	if !ta.Comparable() {
		return false
	}
	defer func() {
		if recover() != nil { // a comparable struct holding an uncomparable value
			same = false
		}
	}()
	return a == b
}

// equalStrings reports whether a and b hold the same strings.
func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
