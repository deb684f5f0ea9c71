// Package tasks is the kernel's registry of running work: evaluations
// started with `exec` in async or timeout mode, and synchronous execs as
// foreground tasks (StartForeground: visible and cancellable while they
// run, not retained after), driven by the
// task.list/get/await/cancel/suspend/resume methods.
//
// A task runs a Work function on its own goroutine with a context that the
// registry cancels on Cancel; the evaluator turns that cancellation into
// killing the task's whole process tree (the host kills process groups).
// Tasks belong to an Owner, the (principal, session) pair that started
// them, and are invisible to everyone else: a foreign task and an unknown
// one give the same ErrUnknownTask.
//
// A task's state is one of running, cancelling, cancelled, failed and
// completed; the last three are terminal. Every change of a task's record
// (start, cancellation requested, suspension, resumption, finish) is passed
// in order to the OnChange hook, so the kernel can publish it on the task's
// event channel.
//
// Suspend and Resume are implemented only for work that registers a
// Suspender on its context (see RegisterSuspender); the package itself
// makes no system calls. For any other task they return
// ErrControlUnavailable.
package tasks
