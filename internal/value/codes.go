package value

// The language error codes: every code a *Error carries, declared once.
// Code raises them through these constants (a test rejects a literal code
// at a constructor), `help errors` lists Codes, and docs/shoal.md's
// "Error codes" table is Codes rendered (a test compares the two).

// Language error codes. Each is in Codes with its meaning and the
// operations that raise it.
const (
	CodeType            = "type_error"
	CodeArg             = "arg_error"
	CodeValue           = "value_error"
	CodeField           = "field_missing"
	CodeIndex           = "index_range"
	CodeUndefined       = "undefined_var"
	CodeOverflow        = "overflow"
	CodeDivZero         = "div_zero"
	CodeUTF8            = "utf8_error"
	CodeTooLarge        = "too_large"
	CodeTooDeep         = "too_deep"
	CodeRecursion       = "recursion_limit"
	CodeAssert          = "assert_failed"
	CodeParse           = "parse_error"
	CodeNotFound        = "not_found"
	CodePermission      = "permission"
	CodeIO              = "io_error"
	CodeCustom          = "custom"
	CodeNoMatches       = "no_matches"
	CodeCmdFailed       = "cmd_failed"
	CodeOutputTruncated = "output_truncated"
	CodeFeed            = "feed_error"
	CodeNet             = "net_error"
	CodeNoTerminal      = "no_terminal"
	CodeRunnerNotFound  = "runner_not_found"
	CodeStreamConsumed  = "stream_consumed"
	CodeStreamUnbounded = "stream_unbounded"
	CodeStreamLimit     = "stream_limit"
	CodeTimeout         = "timeout"
	CodeChannelClosed   = "channel_closed"
	CodeCancelled       = "cancelled"
	CodeTaskCancelled   = "task_cancelled"
	CodeDenied          = "denied"
	CodeApproval        = "approval_required"
	CodeQuotaExceeded   = "quota_exceeded"
	CodeNotReversible   = "not_reversible"
	CodeStaleUndo       = "stale_undo"
	CodeUnavailable     = "unavailable"
	CodeReefUnlocked    = "reef_unlocked"
	CodeReefDrift       = "reef_drift"
	CodeReefConflict    = "reef_conflict"
	CodeReefNotFound    = "reef_not_found"
	CodeReefProvider    = "reef_provider"
	CodeReefLockPath    = "reef_lock_path"
	CodeReefUntrusted   = "reef_untrusted"
	CodeInternal        = "internal_error"
	CodeRaised          = "raised"
)

// CodeInfo describes one language error code.
type CodeInfo struct {
	Name     string // the code, as `err.code` reads it
	Meaning  string // what went wrong, in one line
	RaisedBy string // the operations that raise it
	// Reserved: no operation of this build raises it; it is kept so a
	// client that meets it (from another build or a peer) can name it.
	Reserved bool
}

// Codes lists every language error code, in the order the docs show them
// (values, then the world outside, then control, then the kernel). The
// slice is new on each call.
func Codes() []CodeInfo {
	return []CodeInfo{
		{Name: CodeType, Meaning: "a value of the wrong type for the operation", RaisedBy: "operators, methods, builtins and namespace functions given a value of another type; conditions that are not bool"},
		{Name: CodeArg, Meaning: "a bad argument: wrong count, unknown flag or named argument, a value out of its domain", RaisedBy: "builtins, methods, namespace functions, adapted programs' flags (before the program starts), journal and content-ref queries"},
		{Name: CodeValue, Meaning: "text that does not parse as the value asked for", RaisedBy: "datetime literals and conversions of text to a datetime"},
		{Name: CodeField, Meaning: "a record has no such field, or a table no such column", RaisedBy: "field access `r.name`, table methods naming a column, an unknown method"},
		{Name: CodeIndex, Meaning: "an index past the end of a list or string", RaisedBy: "indexing `xs[i]`"},
		{Name: CodeUndefined, Meaning: "a name that is not bound", RaisedBy: "reading or assigning an undeclared variable"},
		{Name: CodeOverflow, Meaning: "an int, size or duration result past its range", RaisedBy: "arithmetic, unit conversions, ranges, `sum`/`product` and numeric methods"},
		{Name: CodeDivZero, Meaning: "division or remainder by zero", RaisedBy: "`/`, `%` and `//` on ints, sizes and durations"},
		{Name: CodeUTF8, Meaning: "bytes that are not valid UTF-8 where text is needed", RaisedBy: "`.str()` on bytes, reading a file or a secret or an http body as text"},
		{Name: CodeTooLarge, Meaning: "a value, file or encoding past a size bound", RaisedBy: "building a string or list past its bound, reading a file or a content ref past the read bound, encoders (json, yaml, toml, csv, the wire)"},
		{Name: CodeTooDeep, Meaning: "a value or document nested past the depth bound", RaisedBy: "encoders and decoders of documents (json, yaml, toml), the wire"},
		{Name: CodeRecursion, Meaning: "calls or expressions nested past the depth bound", RaisedBy: "function calls, nested expressions, aliases that expand into themselves"},
		{Name: CodeAssert, Meaning: "an assertion that did not hold", RaisedBy: "`assert`"},
		{Name: CodeParse, Meaning: "source that does not parse", RaisedBy: "`explain`, `plan`, scripts run by name"},
		{Name: CodeNotFound, Meaning: "a file, command, program, entry or name that does not exist", RaisedBy: "file system builtins and path methods, running a command not on PATH, `help NAME`, journal entries, content refs, secrets"},
		{Name: CodePermission, Meaning: "the operating system refused access", RaisedBy: "file system builtins and path methods, `secret`"},
		{Name: CodeIO, Meaning: "an input/output failure not covered by a more specific code", RaisedBy: "file system builtins, the journal, content refs"},
		{Name: CodeCustom, Meaning: "an operation that failed for a reason of its own, given in the message", RaisedBy: "file system builtins (an existing target, a missing parent, an empty directory stack), `cd -` without OLDPWD, `open`, circular `use`, session-level builtins inside a function"},
		{Name: CodeNoMatches, Meaning: "a glob that matched nothing where a match is required", RaisedBy: "file system builtins given a glob"},
		{Name: CodeCmdFailed, Meaning: "an external command that failed in statement position", RaisedBy: "running a program whose exit status is not ok, or that a signal killed"},
		{Name: CodeOutputTruncated, Meaning: "a command's captured output passed the capture bound", RaisedBy: "`.out` / `.stdout` of such an outcome"},
		{Name: CodeFeed, Meaning: "data fed to a program that cannot take it", RaisedBy: "`.feed` to a program that reads its own program on stdin"},
		{Name: CodeNet, Meaning: "a network failure: no connection, a timeout, a bad answer", RaisedBy: "the `http` namespace"},
		{Name: CodeNoTerminal, Meaning: "a program that needs a terminal where there is none", RaisedBy: "`interact`, `fg` of a background task, `shoal --kernel` running an interactive program"},
		{Name: CodeRunnerNotFound, Meaning: "no runner for a script", RaisedBy: "running a script whose interpreter or reef tool is not installed"},
		{Name: CodeStreamConsumed, Meaning: "a stream read a second time", RaisedBy: "any method on a stream already consumed"},
		{Name: CodeStreamUnbounded, Meaning: "collecting a stream that may never end", RaisedBy: "`.collect()` and list methods on a live stream"},
		{Name: CodeStreamLimit, Meaning: "a stream operation past its memory bound", RaisedBy: "`.distinct()` on a stream"},
		{Name: CodeTimeout, Meaning: "a wait that passed its timeout", RaisedBy: "channel receives with a timeout; the kernel names it in the data of a frame refused for arriving too slowly"},
		{Name: CodeChannelClosed, Meaning: "a receive on a closed channel", RaisedBy: "channel receives"},
		{Name: CodeCancelled, Meaning: "the evaluation was interrupted or cancelled, or passed its deadline", RaisedBy: "Ctrl-C, `exec` timeouts and cancel, `pick` abandoned, a cancelled stream"},
		{Name: CodeTaskCancelled, Meaning: "a task that was cancelled", RaisedBy: "`t.await()`, `wait`, `fg` on a cancelled task"},
		{Name: CodeDenied, Meaning: "the policy or the leash refused an effect", RaisedBy: "any effect (a file, a program, the network) the session's policy does not grant"},
		{Name: CodeApproval, Meaning: "an effect needs approval before it runs", RaisedBy: "a remote session's `exec` refused with APPROVAL_REQUIRED"},
		{Name: CodeQuotaExceeded, Meaning: "the session's memory or channel budget is spent", RaisedBy: "evaluation past the session's memory budget, channel publishes past the channel memory"},
		{Name: CodeNotReversible, Meaning: "a journal entry that cannot be undone", RaisedBy: "`undo`"},
		{Name: CodeStaleUndo, Meaning: "the files changed since the entry to undo", RaisedBy: "`undo`"},
		{Name: CodeUnavailable, Meaning: "the session has no journal", RaisedBy: "the journal builtins (`journal`, `undo`) outside a kernel session"},
		{Name: CodeReefUnlocked, Meaning: "a reef tool that is not in the lock file", RaisedBy: "running a reef tool"},
		{Name: CodeReefDrift, Meaning: "a reef tool resolved to something other than its lock entry", RaisedBy: "running a reef tool"},
		{Name: CodeReefConflict, Meaning: "two manifests constrain one tool in ways that do not agree", RaisedBy: "resolving a reef tool across scopes"},
		{Name: CodeReefNotFound, Meaning: "a reef tool or version that does not exist", RaisedBy: "`reef` commands, running a reef tool"},
		{Name: CodeReefProvider, Meaning: "a reef provider failed or a manifest is malformed", RaisedBy: "`reef` commands"},
		{Name: CodeReefLockPath, Meaning: "a lock entry names a program where its provider would never find one", RaisedBy: "running a reef tool, `reef` commands reading the lock"},
		{Name: CodeReefUntrusted, Meaning: "Reef refused to write where the project files are not trusted", RaisedBy: "`reef` commands that write a manifest or lock"},
		{Name: CodeInternal, Meaning: "a bug in Shoal: an operation panicked or failed unexpectedly", RaisedBy: "a task that panicked, a kernel failure with no language error"},
		{Name: CodeRaised, Meaning: "a language error whose answer named no code", RaisedBy: "`shoal --kernel` when a kernel's RAISED answer carries no code"},
	}
}

// IsCode reports whether name is a language error code of Codes.
func IsCode(name string) bool {
	for _, c := range Codes() {
		if c.Name == name {
			return true
		}
	}
	return false
}
