package host

import "context"

// trashMoveKey marks a context whose fs ops are rm's moves into the
// kernel's trash, or undo's moves back out of it.
type trashMoveKey struct{}

// WithTrashMove returns ctx marked as carrying a trash move: a gate may
// then let the op reach the principal's trash, which no ordinary op may
// touch. Only the library's rm and undo set it, around the host calls that
// make, fill and empty the trash; nothing a program names can.
func WithTrashMove(ctx context.Context) context.Context {
	return context.WithValue(ctx, trashMoveKey{}, true)
}

// IsTrashMove reports whether ctx was marked by WithTrashMove.
func IsTrashMove(ctx context.Context) bool {
	v, _ := ctx.Value(trashMoveKey{}).(bool)
	return v
}
