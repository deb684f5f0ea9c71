package eval

// Content refs: a string of exactly the shape `val:blake3:<64 lowercase
// hex>` names a blob of the session's content-addressed store (the
// kernel's journal CAS). Used as a method receiver it is resolved: the
// blob is loaded as bytes and the method dispatched on them, so
// `"val:blake3:…".len` is the blob's length, not the ref's. Every other
// string, including one that merely starts with `val:`, keeps dispatching
// string methods.
//
// A ref resolves only through Options.Content, which the kernel installs
// for its sessions and which answers only blobs a journal row the
// session's principal may read names (a hash is not authorization).
// Without one (the CLI without a kernel, the conformance runner) every
// method on a ref is not_found, saying there is no journal/CAS.

import (
	"context"

	"github.com/shoalgo/shoal/internal/value"
)

// ContentRefPrefix begins every content ref; the hash follows.
const ContentRefPrefix = "val:blake3:"

// ContentSource is the content store a host surface provides to a
// session, for `val:blake3:` refs.
type ContentSource interface {
	// Content returns the whole blob named hash ("blake3:<64 hex>"),
	// at most max bytes of it. A blob that is not stored, or that no
	// journal row the session's principal may read names, is a
	// `not_found` language error (the two are not told apart); one longer
	// than max is `too_large`; one that fails verification `io_error`.
	Content(ctx context.Context, hash string, max int64) ([]byte, error)
}

// contentRefHash reports whether s is a content ref, and its CAS hash
// ("blake3:<hex>").
func contentRefHash(s string) (string, bool) {
	const n = len(ContentRefPrefix) + 64
	if len(s) != n || s[:len(ContentRefPrefix)] != ContentRefPrefix {
		return "", false
	}
	for i := len(ContentRefPrefix); i < n; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return s[len("val:"):], true
}

// callContentRef runs method name on the blob ref names: `ref` answers
// the ref itself, `load` and `bytes` the blob's bytes, and any other name
// is dispatched on those bytes. Each first resolves the ref, so a ref the
// session cannot read is not_found whatever the method.
func (t *thread) callContentRef(ref, hash, name string, args value.Args) (value.Value, error) {
	src := t.in.opts.Content
	if src == nil {
		return nil, errorf(codeNotFound, "content ref %s cannot be resolved: this session has no journal/CAS", ref).
			WithHint("content refs name blobs of shoal-kernel's journal/CAS: use them in a kernel session with a state directory")
	}
	data, err := src.Content(t.ctx, hash, MaxContentRefBytes)
	if err != nil {
		return nil, err
	}
	b := value.Bytes(data)
	switch name {
	case "ref":
		if err := noArgs("."+name, args); err != nil {
			return nil, err
		}
		return value.Str(ref), nil
	case "load", "bytes":
		if err := noArgs("."+name, args); err != nil {
			return nil, err
		}
		return b, nil
	}
	if v, ok, err := t.callKnownMethod(b, name, args); ok {
		return v, err
	}
	return nil, unknownMethod(b, name)
}
