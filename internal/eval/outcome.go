package eval

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/value"
)

// outcomeField answers the outcome's own fields. ok is false for names
// that forward to the payload.
func (t *thread) outcomeField(o *value.Outcome, name string) (value.Value, bool, error) {
	switch name {
	case "status":
		if o.Status == nil {
			return value.Nil, true, nil
		}
		return value.Int(*o.Status), true, nil
	case "ok":
		return value.Bool(o.Ok()), true, nil
	case "signal":
		if o.Signal == "" {
			return value.Nil, true, nil
		}
		return value.Str(o.Signal), true, nil
	case "stdout":
		return value.BytesAlias(o.Stdout), true, nil
	case "stderr":
		return value.BytesAlias(o.Stderr), true, nil
	case "dur", "duration":
		return value.Duration(o.Dur), true, nil
	case "pid":
		return value.Int(o.Pid), true, nil
	case "cmd":
		return value.Str(o.Cmd), true, nil
	case "argv":
		items := make([]value.Value, len(o.Argv))
		for i, a := range o.Argv {
			items[i] = value.Str(a)
		}
		return value.NewList(items), true, nil
	case "out":
		v, err := t.outcomeOut(o)
		return v, true, err
	case "err":
		if !o.Ok() {
			return nil, true, cmdFailed(o)
		}
		return value.BytesAlias(o.Stderr), true, nil
	}
	return nil, false, nil
}

// outcomeOut is the semantic payload of a successful outcome: the builtin's
// value, parsed JSON when stdout holds a JSON object or array, or the text
// with one trailing newline removed. Reading it on a failed outcome raises
// cmd_failed.
func (t *thread) outcomeOut(o *value.Outcome) (value.Value, error) {
	if !o.Ok() {
		return nil, cmdFailed(o)
	}
	if o.Out != nil {
		return o.Out, nil
	}
	if isTruncated(o) {
		return nil, truncatedError(o)
	}
	out, err := t.keep(deriveOut(o.Stdout), nil)
	if err != nil {
		return nil, err
	}
	o.Out = out
	return o.Out, nil
}

func deriveOut(stdout []byte) value.Value {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		if v, err := value.ParseJSON(trimmed); err == nil && v != nil {
			return v
		}
	}
	// Captured output is never written again once the process has exited,
	// so the payload shares its memory rather than copying it.
	if !utf8.Valid(stdout) {
		return value.BytesAlias(stdout)
	}
	s := string(value.BytesAlias(stdout))
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
	}
	return value.Str(s)
}

// cmdFailed is the error for a failed command.
func cmdFailed(o *value.Outcome) *value.Error {
	var e *value.Error
	switch {
	case o.Signal != "":
		e = errorf(codeCmdFailed, "`%s` was killed by %s", o.Cmd, o.Signal)
	case o.Status != nil:
		e = errorf(codeCmdFailed, "`%s` exited with status %d", o.Cmd, *o.Status)
		e.Status = value.Int(*o.Status)
	default:
		e = errorf(codeCmdFailed, "`%s` failed", o.Cmd)
	}
	if len(o.Stderr) > 0 {
		e.Stderr = value.Str(value.BytesAlias(o.Stderr))
		e.Hint = fmt.Sprintf("stderr: %s", firstLine(o.Stderr))
	}
	return e
}

func firstLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// builtinOutcome wraps a builtin's result in a successful outcome.
func builtinOutcome(cmd string, out value.Value) *value.Outcome {
	zero := 0
	if out == nil {
		out = value.Nil
	}
	return &value.Outcome{Cmd: cmd, Status: &zero, Out: out, Builtin: true}
}
