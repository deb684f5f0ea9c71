package eval

// The exported API the system libraries use (internal/lib/sys, http,
// secret, journal, reefcmd): what a namespace member, a journal builtin or
// the reef command asks of the evaluation it runs in, each a question the
// evaluator answers from its own state.

import (
	"strings"

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
