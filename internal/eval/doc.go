// Package eval is Shoal's tree-walking evaluator. It owns one session's
// language state (scopes, working directory, environment, directory stack)
// and runs parsed programs against it.
//
// Every evaluation runs on a thread: an explicit execution context carrying
// the host gate, cancellation, the dynamic working directory and
// environment, the call depth and the output writers. Function calls reuse
// their caller's thread; `with`, `source` and `run` derive a child thread
// from their parent, so dynamic state is restored simply by dropping the
// child. A background task (`spawn`, `cmd &`, `{ … } &`) runs on its own
// goroutine, on a thread forked from its parent's; evaluations of one
// session take turns under the session lock (see sched.go). No code path
// reaches the operating system except through the thread's host.Host.
//
// Commands resolve in a fixed order: session callables (with typed word
// binding), aliases, the builtin registry (see RegisterBuiltin; further
// builtins are added from init functions), scripts, and finally external
// programs found through Host.LookPath.
package eval
