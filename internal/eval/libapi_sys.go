package eval

// The exported API the system libraries use (internal/lib/sys, http,
// secret, journal, reefcmd): what a namespace member, a journal builtin or
// the reef command asks of the evaluation it runs in, each a question the
// evaluator answers from its own state.

import (
	"strings"

	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/value"
)

// ContextOf is the evaluation context behind the env a value function
// (a namespace member, a *value.Builtin) is called with; ok is false when
// it is called outside an evaluation.
func ContextOf(env value.Env) (Context, bool) {
	t, ok := env.(*thread)
	if !ok {
		return Context{}, false
	}
	return Context{t}, true
}

// HostError maps an error from the host gate onto a language error: a
// refusal is denied, a missing file not_found, a network failure
// net_error, a cancelled evaluation cancelled, a spent budget its quota
// code, anything else io_error.
func HostError(err error) *value.Error { return hostError(err) }

// FeedBytes serialises a finite value the way a command's stdin gets it
// (text as is, a list of strings one a line, records and tables as
// compact JSON); a stream or an unfinished value is a feed_error.
func (c Context) FeedBytes(v value.Value) ([]byte, error) { return c.t.feedBytes(v) }

// EnvRecord renders an environment (KEY=VALUE) as an ordered record.
func EnvRecord(env []string) *value.Record {
	keys := make([]string, 0, len(env))
	vals := make([]value.Value, 0, len(env))
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		keys = append(keys, k)
		vals = append(vals, value.Str(v))
	}
	return value.NewRecord(keys, vals)
}

// CommandText renders a value as command text, as a builtin's argument
// or flag value is read: strings, paths and bytes raw, a glob as its
// pattern, null as "", other scalars inline; a container or a secret is a
// type_error.
func CommandText(v value.Value) (string, error) { return argText(v) }

// Journal is the session's journal (Options.Journal), nil when the
// session has none.
func (c Context) Journal() JournalSource { return c.t.in.opts.Journal }

// LineHistory is the REPL's typed lines, oldest first, when the session
// was given them (Interp.SetLineHistory); ok is false otherwise.
func (c Context) LineHistory() (lines []string, ok bool) {
	if c.t.in.lineHistory == nil {
		return nil, false
	}
	return c.t.in.lineHistory(), true
}

// FirstLine is the first line of a program's output, trimmed and cut at
// 200 bytes, as an error message quotes it.
func FirstLine(b []byte) string { return firstLine(b) }

// Blocking runs f, a call that blocks (a spawn, a wait), with the
// session's evaluation lock released, so the session's other tasks run
// meanwhile.
func (c Context) Blocking(f func()) { c.t.unlocked(f) }

// ReefError is a Reef error (*reef.Error) as a language error with its
// reef_* code and hint; any other error is returned as it is.
func ReefError(err error) error { return reefErr(err) }

// Reef is the session's Reef state as the reef command reads and writes
// it: the scope chain in force, its lock, the resolver and the person's
// trust, cached in the session (reef.go) and checked against the files on
// every use.
type Reef struct{ t *thread }

// Reef is the session's Reef state, seen from this evaluation (its
// directory, environment and `with reef:` overrides).
func (c Context) Reef() Reef { return Reef(c) }

// Chain is the chain in force (the `with reef:` overrides first),
// rediscovered when a manifest appeared, vanished or changed; the errors
// are the manifests that discovery skipped, when it ran now.
func (r Reef) Chain() (*reef.Chain, []error) { return r.t.reefChain() }

// Diagnose is Chain with every manifest discovery skipped, rediscovering
// when the chain came from the cache (reef doctor).
func (r Reef) Diagnose() (*reef.Chain, []error) {
	c, skipped := r.t.reefChain()
	if skipped == nil && r.t.in.opts.Reef {
		_, skipped = reef.Discover(r.t.reefFS(), r.t.dir, reefUserFile(r.t.env), r.t.in.opts.ProjectTrust)
	}
	return c, skipped
}

// Lock is a working copy of ch's lock: an empty lock when there is none,
// nil when ch has no lock path. A lock that does not parse is
// reef_provider; one naming a path its provider would not find is
// reef_lock_path (the copy is returned with it).
func (r Reef) Lock(ch *reef.Chain) (*reef.Lock, error) { return r.t.reefLock(ch) }

// Save writes l as ch's lock and carries the person's trust over to what
// it wrote when the session can (reefSave).
func (r Reef) Save(ch *reef.Chain, l *reef.Lock) error { return r.t.reefSave(ch, l) }

// Resolver is the session's resolver: reads through the host gate,
// version probes spawned through it, the session's probe cache.
func (r Reef) Resolver() *reef.Resolver { return r.t.resolver() }

// Env is what the providers read of the evaluation, with ch's trusted
// project directories as the project-local providers' roots.
func (r Reef) Env(ch *reef.Chain) reef.Env { return r.t.reefEnv(ch) }

// FS is Reef's file access through the host gate.
func (r Reef) FS() reef.FS { return r.t.reefFS() }

// Trust is the person's decision about project directories
// (Options.ProjectTrust); nil trusts none.
func (r Reef) Trust() reef.Trust { return r.t.in.opts.ProjectTrust }

// Wrote records that the session wrote a project file whose directory
// had digest old and now reads as now: the person's trust is carried
// over when the session can, and the cached chain is dropped.
func (r Reef) Wrote(old string, now *reef.Project) {
	r.t.reefAmend(old, now)
	r.t.reefInvalidate()
}

// FuncCall is one call of a value function (`name(args…)`): the
// evaluation it runs in and the name it was called by. It is to a
// Func's Call what BuiltinCall is to a Builtin's Run, so a library
// package can define value functions on eval's exported API alone.
type FuncCall struct {
	Context
	Name string
}

// Errorf builds a language error for this function.
func (c *FuncCall) Errorf(code, format string, args ...any) *value.Error {
	return value.Errorf(code, c.Name+": "+format, args...)
}

// funcCall is a call of the function name on t.
func (t *thread) funcCall(name string) *FuncCall {
	return &FuncCall{Context: Context{t}, Name: name}
}

// onThread adapts one of eval's own value functions, written on the
// thread, to Func.Call.
func onThread(f func(t *thread, args value.Args) (value.Value, error)) func(*FuncCall, value.Args) (value.Value, error) {
	return func(c *FuncCall, a value.Args) (value.Value, error) { return f(c.t, a) }
}

// Terminal is the session's interactive terminal (Options.Terminal), nil
// when it has none (a script, -c, the kernel): what `.pick` reads the
// person's answer from, through Host.ReadTerminalLine.
func (c Context) Terminal() interface{ Fd() uintptr } { return c.t.in.opts.Terminal }
