package tasks

import (
	"errors"
	"fmt"
)

// Errors returned by the registry; compare with errors.Is.
var (
	// ErrUnknownTask: no task with that id is visible to the caller (it
	// never existed, was evicted, or belongs to another owner).
	ErrUnknownTask = errors.New("unknown task")
	// ErrControlUnavailable: the task cannot be suspended or resumed
	// (it registered no Suspender, or is no longer running).
	ErrControlUnavailable = errors.New("task control unavailable")
	// ErrTooManyTasks: the owner already has MaxLive running tasks. The
	// concrete error is a *LimitError.
	ErrTooManyTasks = errors.New("too many live tasks")
	// ErrClosed: the registry was closed and starts no more work.
	ErrClosed = errors.New("task registry closed")
	// ErrCancelled is the error of a task that ended in state cancelled.
	ErrCancelled = errors.New("task cancelled")
)

// LimitError reports a Start refused because the owner is at its bound of
// live tasks.
type LimitError struct {
	Owner Owner
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%v: session %q already has %d running tasks", ErrTooManyTasks, e.Owner.Session, e.Limit)
}

// Is makes errors.Is(err, ErrTooManyTasks) hold.
func (e *LimitError) Is(target error) bool { return target == ErrTooManyTasks }

// PanicError is the error of a task whose work panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("task panicked: %v", e.Value) }

func unknown(id string) error { return fmt.Errorf("%w: %q", ErrUnknownTask, id) }
