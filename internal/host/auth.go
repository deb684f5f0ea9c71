package host

import (
	"context"
	"errors"
	"strings"
)

// ErrDenied is matched by every *DeniedError through errors.Is.
var ErrDenied = errors.New("denied")

// DeniedError is an authorisation refusal. The evaluator turns it into a
// language error with code "denied".
type DeniedError struct {
	Op     Op
	Reason string // which policy refused, e.g. "deny all"
}

// Denied returns a refusal of op for the given reason.
func Denied(op Op, reason string) error {
	return &DeniedError{Op: op, Reason: reason}
}

// Error renders "denied: fs_write /tmp/x (policy: deny all)".
func (e *DeniedError) Error() string {
	var b strings.Builder
	b.WriteString("denied: ")
	b.WriteString(string(e.Op.Effect))
	if e.Op.Target != "" {
		b.WriteByte(' ')
		b.WriteString(e.Op.Target)
	}
	if e.Reason != "" {
		b.WriteString(" (policy: ")
		b.WriteString(e.Reason)
		b.WriteByte(')')
	}
	return b.String()
}

// Is reports whether target is ErrDenied.
func (e *DeniedError) Is(target error) bool { return target == ErrDenied }

// AuthorizerFunc adapts a function to the Authorizer interface.
type AuthorizerFunc func(ctx context.Context, op Op) error

// Authorize calls f(ctx, op).
func (f AuthorizerFunc) Authorize(ctx context.Context, op Op) error { return f(ctx, op) }

type allowAll struct{}

func (allowAll) Authorize(context.Context, Op) error { return nil }

type denyAll struct{}

func (denyAll) Authorize(_ context.Context, op Op) error { return Denied(op, "deny all") }

// AllowAll permits every operation (trusted local sessions, tests).
var AllowAll Authorizer = allowAll{}

// DenyAll refuses every operation with a *DeniedError.
var DenyAll Authorizer = denyAll{}
