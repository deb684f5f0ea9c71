package eval

// The exported API the file-system library (internal/lib/fs) is written
// against, beside the entry types and BuiltinCall/Context it shares with
// every library package. Each name answers one question the library asks
// of the evaluator; the state behind it (the session's trash, the
// evaluation's undo log, the registry's save methods) stays here.

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// AnyKind is the Method.Kind of a method every receiver kind has
// (`.save`, `.append`).
const AnyKind = anyKind

// EffReads declares an fs_read of every positional path.
func EffReads(d *leash.Deriver) { d.PathArgs(host.FSRead, leash.Reversible) }

// EffSaveMethod declares what VALUE.save(PATH) and .append(PATH) do: a
// write of their argument (not of a field read as `.save`).
func EffSaveMethod(d *leash.Deriver) {
	if args := d.Args(); !d.Field() && len(args) > 0 {
		d.ExprPath(args[0].Value, host.FSWrite, leash.Conditional)
	}
}

// PassThrough reports whether err must reach the caller unchanged: a
// host refusal or a cancelled evaluation. A builtin that shapes host
// errors into language errors leaves these as they are.
func PassThrough(err error) bool {
	return errors.Is(err, host.ErrDenied) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// OSReason is the OS reason of err, without the operation and path that
// the message already names.
func OSReason(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// PathText is the text of v, a str or path, as a method's or value
// function's file name; any other value is a type_error.
func PathText(v value.Value) (string, error) { return pathText(v) }

// PathText renders one path-like argument (str or path) as path text; any
// other value is a type_error.
func (c *BuiltinCall) PathText(v value.Value) (string, error) {
	switch x := v.(type) {
	case value.Str:
		return string(x), nil
	case value.Path:
		return string(x), nil
	}
	return "", c.Errorf(value.CodeType, "expected a path or str argument, got %s", value.TypeName(v))
}

// FileError shapes an error from a host call made on behalf of builtin c
// for the user-written path name. Refusals, cancellation and language
// errors pass through unchanged; every other file system failure becomes a
// `custom` language error naming the path.
func (c *BuiltinCall) FileError(name string, err error) error {
	if err == nil {
		return nil
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve
	}
	if PassThrough(err) {
		return err
	}
	return c.Errorf(value.CodeCustom, "%s: %s", name, OSReason(err))
}

// CallHostMethod calls the registry's method name for recv's kind (its
// own, else one of every kind) the way `recv.name(args)` would; ok is
// false when the registry has none. The `save` command delegates to
// VALUE.save with it, so a stream saves as a stream does.
func (c *BuiltinCall) CallHostMethod(recv value.Value, name string, args value.Args) (v value.Value, ok bool, err error) {
	m, ok := c.t.reg().lookupHostMethod(recv.Kind(), name)
	if !ok {
		return nil, false, nil
	}
	v, err = m(&MethodCall{Name: name, t: c.t}, recv, args)
	return v, true, err
}

// ExpandHome replaces a leading `~` of p with the session's HOME.
func (c Context) ExpandHome(p string) string { return c.t.expandHome(p) }

// Save writes v to the file at p (relative to the working directory):
// str and bytes as they are, lists, records and tables as compact JSON,
// an outcome as its output; appendTo appends. It marks the evaluation's
// undo log lost (a write keeps no prior content).
func (c Context) Save(v value.Value, p string, appendTo bool) error {
	return c.t.saveValue(v, p, appendTo)
}

// UndoRecord records s, the inverse of a step the caller just took, in the
// evaluation's undo log when it keeps one.
func (c Context) UndoRecord(s UndoStep) { undoRecord(c.t.ctx, s) }

// UndoLose marks the evaluation's undo log as having no complete inverse,
// saying why (an effect the caller cannot invert).
func (c Context) UndoLose(why string) { undoLose(c.t.ctx, why) }

// Fingerprint is s with the fingerprint of what fi describes, which undo
// checks before it moves or removes the thing again.
func (s UndoStep) Fingerprint(fi fs.FileInfo) UndoStep { return undoFingerprint(s, fi) }

// TrashRoot is the directory rm's trash lies under for this session:
// Options.Trash, else TrashRoot of the session's environment.
func (c Context) TrashRoot() string { return c.t.in.TrashRoot(c.t.env) }

// Trashed tells the embedder that something was moved into the trash
// (Options.Trashed), so its retention can run.
func (c Context) Trashed() {
	if f := c.t.in.opts.Trashed; f != nil {
		f()
	}
}

// TrashRoot is the directory rm's trash lies under in this session, with
// environment env: Options.Trash, else TrashRoot(env).
func (in *Interp) TrashRoot(env []string) string {
	if in.opts.Trash != "" {
		return in.opts.Trash
	}
	return TrashRoot(env)
}

// TrashRoot is the directory under which rm (without --permanent) makes
// its trash, for a session with environment env (KEY=VALUE):
// <TMPDIR>/shoal-trash, with /tmp when TMPDIR is unset or relative. Plans
// name it as what rm writes.
func TrashRoot(env []string) string {
	tmp, ok := lookupEnv(env, "TMPDIR")
	if !ok || !filepath.IsAbs(tmp) {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, "shoal-trash")
}
