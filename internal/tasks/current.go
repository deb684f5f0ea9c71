package tasks

import "context"

// Current is the task whose work context ctx is, and false outside one.
func Current(ctx context.Context) (*Task, bool) {
	t, _ := ctx.Value(taskKey{}).(*Task)
	return t, t != nil
}
