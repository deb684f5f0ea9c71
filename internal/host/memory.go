package host

import "context"

// Memory is a budget the host charges for the memory it holds on a
// caller's behalf: the in-memory buffers of captured output. The kernel
// passes each session's budget (internal/budget satisfies it); the host
// knows nothing of sessions.
type Memory interface {
	// Charge accounts n more bytes, or fails when they do not fit.
	Charge(n int64) error
	// Release returns n bytes charged earlier.
	Release(n int64)
}

type memoryKey struct{}

// WithMemory returns a context under which the host charges m for the
// memory it holds (see Memory).
func WithMemory(ctx context.Context, m Memory) context.Context {
	return context.WithValue(ctx, memoryKey{}, m)
}

// memoryOf returns the Memory ctx carries, nil when none.
func memoryOf(ctx context.Context) Memory {
	m, _ := ctx.Value(memoryKey{}).(Memory)
	return m
}
