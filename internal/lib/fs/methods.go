package fs

// The path methods that look at the file system (exists, is_file, is_dir,
// size, read, read_bytes, lines, modified) or at the working directory
// (abs), and VALUE.save / VALUE.append, which every kind has.

import (
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// effReadsReceiver: a path method that reads the file system at its
// receiver (on a receiver of unknown type, when called).
func effReadsReceiver(d *leash.Deriver) { d.ReceiverRead() }

// effReadsPathReceiver: a path method that reads the file system at its
// receiver when the receiver is known to be a path. `.size` is counted
// so: on a receiver of unknown type plans have always taken it for a
// record's size field (a row of ls), not a read.
func effReadsPathReceiver(d *leash.Deriver) { d.ReceiverReadTyped() }

func registerMethods(p *eval.Part) {
	save := func(appendTo bool) eval.HostMethod {
		return func(c *eval.MethodCall, recv value.Value, a value.Args) (value.Value, error) {
			if len(a.Pos) != 1 || len(a.Named) > 0 {
				return nil, value.Errorf(bfsArgError, ".%s takes one path", c.Name)
			}
			p, err := eval.PathText(a.Pos[0])
			if err != nil {
				return nil, err
			}
			return recv, c.Thread().Save(recv, p, appendTo)
		}
	}
	p.Method(&eval.Method{Kind: eval.AnyKind, Name: "save", Call: save(false), Effects: eval.EffSaveMethod,
		Help: eval.Help{Summary: "write the value to a file (text as is, other values as JSON) and return it", Usage: "VALUE.save(PATH)", Example: "{ok: true}.save(\"out.json\")"}})
	p.Method(&eval.Method{Kind: eval.AnyKind, Name: "append", Call: save(true), Effects: eval.EffSaveMethod,
		Help: eval.Help{Summary: "append the value to a file and return it", Usage: "VALUE.append(PATH)", Example: "\"one more line\\n\".append(\"notes.txt\")"}})

	// pathMethod registers a path method that takes no arguments and
	// declares its effects with eff: effReadsReceiver for one that reads
	// the file system at the path, eval.EffNone for one that looks at the text.
	pathMethod := func(name string, eff func(*leash.Deriver), summary, example string, f func(t *eval.Context, p string) (value.Value, error)) {
		p.Method(&eval.Method{Kind: value.KPath, Name: name, Effects: eff,
			Help: eval.Help{Summary: summary, Usage: "PATH." + name + "()", Example: example},
			Call: func(c *eval.MethodCall, recv value.Value, a value.Args) (value.Value, error) {
				if len(a.Pos) > 0 || len(a.Named) > 0 {
					return nil, value.Errorf(bfsArgError, ".%s takes no arguments", name)
				}
				return f(c.Thread(), string(recv.(value.Path)))
			}})
	}
	// The predicates answer false for a path that cannot be stat'ed, but a
	// refusal or cancellation is an error, never a silent false.
	pathMethod("exists", effReadsReceiver, "whether something exists at the path", "path(\"notes.txt\").exists()", func(t *eval.Context, p string) (value.Value, error) {
		_, err := t.Host().Stat(t.Ctx(), t.Abs(p))
		if eval.PassThrough(err) {
			return nil, eval.HostError(err)
		}
		return value.Bool(err == nil), nil
	})
	pathMethod("is_file", effReadsReceiver, "whether the path is a regular file", "path(\"notes.txt\").is_file()", func(t *eval.Context, p string) (value.Value, error) {
		fi, err := t.Host().Stat(t.Ctx(), t.Abs(p))
		if eval.PassThrough(err) {
			return nil, eval.HostError(err)
		}
		return value.Bool(err == nil && fi.Mode().IsRegular()), nil
	})
	pathMethod("is_dir", effReadsReceiver, "whether the path is a directory", "path(\"src\").is_dir()", func(t *eval.Context, p string) (value.Value, error) {
		fi, err := t.Host().Stat(t.Ctx(), t.Abs(p))
		if eval.PassThrough(err) {
			return nil, eval.HostError(err)
		}
		return value.Bool(err == nil && fi.IsDir()), nil
	})
	pathMethod("size", effReadsPathReceiver, "the size of the file at the path", "path(\"notes.txt\").size()", func(t *eval.Context, p string) (value.Value, error) {
		fi, err := t.Host().Stat(t.Ctx(), t.Abs(p))
		if err != nil {
			return nil, eval.HostError(err)
		}
		return value.Size(fi.Size()), nil
	})
	pathMethod("read", effReadsReceiver, "the file's contents as text (UTF-8)", "path(\"notes.txt\").read()", func(t *eval.Context, p string) (value.Value, error) {
		s, err := readText(t, p)
		if err != nil {
			return nil, err
		}
		return value.Str(s), nil
	})
	pathMethod("read_bytes", effReadsReceiver, "the file's contents as bytes", "path(\"notes.txt\").read_bytes()", func(t *eval.Context, p string) (value.Value, error) {
		data, err := t.Host().ReadFile(t.Ctx(), t.Abs(p))
		if err != nil {
			return nil, eval.HostError(err)
		}
		return value.Bytes(data), nil
	})
	pathMethod("lines", effReadsReceiver, "the file's lines", "path(\"notes.txt\").lines()", func(t *eval.Context, p string) (value.Value, error) {
		s, err := readText(t, p)
		if err != nil {
			return nil, err
		}
		return splitLines(s), nil
	})
	pathMethod("abs", eval.EffNone, "the path made absolute against the working directory", "path(\"notes.txt\").abs()", func(t *eval.Context, p string) (value.Value, error) {
		return value.Path(t.Abs(p)), nil
	})
	pathMethod("modified", effReadsReceiver, "when the file was last modified", "path(\"notes.txt\").modified()", func(t *eval.Context, p string) (value.Value, error) {
		fi, err := t.Host().Stat(t.Ctx(), t.Abs(p))
		if err != nil {
			return nil, eval.HostError(err)
		}
		return value.DateTime{T: fi.ModTime()}, nil
	})
}

// readText is the file at p as text; anything but UTF-8 is refused.
func readText(t *eval.Context, p string) (string, error) {
	data, err := t.Host().ReadFile(t.Ctx(), t.Abs(p))
	if err != nil {
		return "", eval.HostError(err)
	}
	if !utf8.Valid(data) {
		return "", value.Errorf(bfsUTF8, "%s is not valid UTF-8", filepath.Base(p)).
			WithHint("read raw content with .read_bytes()")
	}
	return string(data), nil
}

// splitLines splits text into lines, dropping one final newline and each
// line's trailing "\r".
func splitLines(s string) *value.List {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return value.NewList(nil)
	}
	parts := strings.Split(s, "\n")
	items := make([]value.Value, len(parts))
	for i, l := range parts {
		items[i] = value.Str(strings.TrimSuffix(l, "\r"))
	}
	return value.NewList(items)
}
