package fs

// Pure path accessors on path values: name, stem, ext, parent, join. They
// look at the path text only and never touch the filesystem; each works as
// a field too (`p.name`). The path methods that read the file system
// (read, exists, size, ...) are methods.go's.

import (
	"strings"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
)

func registerPath(p *eval.Part) {
	for _, m := range []struct {
		name, summary, example string
		f                      func(string) value.Value
	}{
		{"name", "the last element of the path", "path(\"src/main.go\").name", bfsPathName},
		{"stem", "the last element without its extension", "path(\"src/main.go\").stem", bfsPathStem},
		{"ext", "the extension of the last element, with its dot", "path(\"src/main.go\").ext", bfsPathExt},
		{"parent", "the path without its last element", "path(\"src/main.go\").parent", bfsPathParent},
	} {
		p.Method(&eval.Method{Kind: value.KPath, Name: m.name, Call: bfsNoArgPathMethod(m.f), Effects: eval.EffNone,
			Help: eval.Help{Summary: m.summary, Usage: "PATH." + m.name, Example: m.example}})
	}
	p.Method(&eval.Method{Kind: value.KPath, Name: "join", Call: bfsPathJoin, Effects: eval.EffNone,
		Help: eval.Help{Summary: "the path with more elements after it", Usage: "PATH.join(PART)", Example: "path(\"src\").join(\"main.go\")"}})
}

// bfsNoArgPathMethod is a path method of f that takes no arguments.
func bfsNoArgPathMethod(f func(string) value.Value) eval.HostMethod {
	return func(c *eval.MethodCall, recv value.Value, a value.Args) (value.Value, error) {
		if len(a.Pos) > 0 || len(a.Named) > 0 {
			return nil, value.Errorf(bfsArgError, ".%s takes no arguments", c.Name)
		}
		return f(string(recv.(value.Path))), nil
	}
}

// bfsTrimSlashes drops trailing separators, keeping a lone root.
func bfsTrimSlashes(p string) string {
	for len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	return p
}

// bfsBase is the final normal component of p, or "" when there is none
// ("/", ".", "..", "").
func bfsBase(p string) string {
	p = bfsTrimSlashes(p)
	for strings.HasSuffix(p, "/.") {
		p = bfsTrimSlashes(p[:len(p)-2])
	}
	base := p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		base = p[i+1:]
	}
	if base == "." || base == ".." {
		return ""
	}
	return base
}

// bfsTextValue is s as a str, invalid UTF-8 replaced.
func bfsTextValue(s string) value.Value {
	return value.Str(strings.ToValidUTF8(s, "\uFFFD"))
}

// bfsPathName is the final component, or null.
func bfsPathName(p string) value.Value {
	b := bfsBase(p)
	if b == "" {
		return value.Nil
	}
	return bfsTextValue(b)
}

// bfsSplitExt splits a base name at its last dot; a leading dot starts a
// hidden name, not an extension.
func bfsSplitExt(b string) (stem, ext string, ok bool) {
	i := strings.LastIndexByte(b, '.')
	if i <= 0 {
		return b, "", false
	}
	return b[:i], b[i+1:], true
}

// bfsPathStem is the final component without its extension, or null.
func bfsPathStem(p string) value.Value {
	b := bfsBase(p)
	if b == "" {
		return value.Nil
	}
	stem, _, _ := bfsSplitExt(b)
	return bfsTextValue(stem)
}

// bfsPathExt is the extension without its dot, or null when there is none.
func bfsPathExt(p string) value.Value {
	_, ext, ok := bfsSplitExt(bfsBase(p))
	if !ok {
		return value.Nil
	}
	return bfsTextValue(ext)
}

// bfsPathParent is p without its final component, or null for a root or a
// bare name.
func bfsPathParent(p string) value.Value {
	p = bfsTrimSlashes(p)
	if p == "/" || p == "" {
		return value.Nil
	}
	i := strings.LastIndexByte(p, '/')
	switch {
	case i < 0:
		return value.Nil
	case i == 0:
		return value.Path("/")
	}
	return value.Path(bfsTrimSlashes(p[:i]))
}

// bfsPathJoin appends a str or path segment; an absolute segment replaces
// the receiver.
func bfsPathJoin(_ *eval.MethodCall, recv value.Value, a value.Args) (value.Value, error) {
	if len(a.Pos) != 1 || len(a.Named) > 0 {
		return nil, value.Errorf(bfsArgError, ".join takes one str or path segment")
	}
	var seg string
	switch x := a.Pos[0].(type) {
	case value.Str:
		seg = string(x)
	case value.Path:
		seg = string(x)
	default:
		return nil, value.Errorf(bfsTypeError, ".join expects a str or path segment, got %s", value.TypeName(a.Pos[0]))
	}
	base := string(recv.(value.Path))
	switch {
	case strings.HasPrefix(seg, "/") || base == "":
		return value.Path(seg), nil
	case strings.HasSuffix(base, "/"):
		return value.Path(base + seg), nil
	}
	return value.Path(base + "/" + seg), nil
}
