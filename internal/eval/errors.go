package eval

import (
	"context"
	"errors"
	"io/fs"

	"github.com/shoalgo/shoal/internal/budget"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// Error codes produced by the evaluator itself: short names for the
// codes declared once in value (value.Codes lists them all).
const (
	codeType      = value.CodeType
	codeArg       = value.CodeArg
	codeField     = value.CodeField
	codeIndex     = value.CodeIndex
	codeUndefined = value.CodeUndefined
	codeNotFound  = value.CodeNotFound
	codeAssert    = value.CodeAssert
	codeCmdFailed = value.CodeCmdFailed
	codeRecursion = value.CodeRecursion
	codeTooLarge  = value.CodeTooLarge // a file or value past a size bound
	codeCustom    = value.CodeCustom
	codeIO        = value.CodeIO
	codeFeed      = value.CodeFeed
	codeNet       = value.CodeNet
	codeUTF8      = value.CodeUTF8
)

func errorf(code, format string, args ...any) *value.Error {
	return value.Errorf(code, format, args...)
}

// flow is non-local control (return, break, continue). It travels on the
// error path so every evaluator frame propagates it for free, but it is not
// a *value.Error, so `try`/`catch` never intercept it.
type flow struct {
	kind flowKind
	val  value.Value // return value
}

type flowKind uint8

const (
	flowReturn flowKind = iota + 1
	flowBreak
	flowContinue
	flowExit // `exit`: stop the program; the status is on the session
)

func (f *flow) Error() string {
	switch f.kind {
	case flowBreak:
		return "break outside a loop"
	case flowContinue:
		return "continue outside a loop"
	case flowExit:
		return "exit requested"
	}
	return "return outside a function"
}

var (
	breakSignal    = &flow{kind: flowBreak}
	continueSignal = &flow{kind: flowContinue}
	exitSignal     = &flow{kind: flowExit}
)

// withSpan attaches span s to a language error that has none yet.
func withSpan(err error, s syntax.Span) error {
	if e, ok := err.(*value.Error); ok {
		e.At(s)
	}
	return err
}

// langError converts any error into a *value.Error (flow signals are
// returned unchanged), mapping host failures onto stable codes.
func langError(err error) error {
	if err == nil {
		return nil
	}
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve
	}
	if _, ok := err.(*flow); ok {
		return err
	}
	return hostError(err)
}

// hostError maps an error from the host gate onto a language error.
func hostError(err error) *value.Error {
	var ve *value.Error
	if errors.As(err, &ve) {
		return ve
	}
	msg := err.Error()
	switch {
	case errors.Is(err, host.ErrDenied):
		return errorf(value.CodeDenied, "%s", msg)
	case errors.Is(err, host.ErrNet):
		return errorf(codeNet, "%s", msg)
	case errors.Is(err, fs.ErrNotExist):
		return errorf(codeNotFound, "%s", msg)
	case errors.Is(err, fs.ErrPermission):
		return errorf(value.CodePermission, "%s", msg)
	case errors.Is(err, fs.ErrExist):
		return errorf(codeCustom, "%s", msg)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return errorf(value.CodeCancelled, "%s", msg)
	case errors.As(err, new(*budget.ExceededError)):
		return quotaError(err)
	case errors.Is(err, host.ErrTooLarge):
		return errorf(codeTooLarge, "%s", msg).
			WithHint("read the start with `head PATH N`, or process the file with an external command")
	}
	return errorf(codeIO, "%s", msg)
}

// gateStop reports whether err from the host must stop evaluation even
// where a failure is otherwise an answer (a missing program, a path that
// does not exist): a refusal by the gate, or a cancelled evaluation.
func gateStop(err error) bool {
	return err != nil && (errors.Is(err, host.ErrDenied) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}
