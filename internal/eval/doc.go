// Package eval is Shoal's tree-walking evaluator. It owns one session's
// language state (scopes, working directory, environment, directory stack)
// and runs parsed programs against it.
//
// Every evaluation runs on a thread: an explicit execution context carrying
// the host gate, cancellation, the dynamic working directory, previous
// directory, directory stack and environment, the call depth and the output
// writers. `with`, `run` and module loading derive a child thread from their
// parent on the same goroutine, so dynamic state (a `cd`, `pushd` or
// `env.X = …` inside a `with` block included) is restored simply by
// dropping the child. Function calls and `source` reuse their caller's
// thread: `source` evaluates a file in the caller's scope, as if its
// statements were typed there, so its declarations stay visible and, at
// session top level, its navigation and environment changes are the
// session's. A background task (`spawn`, `cmd &`, `{ … } &`) runs on its
// own goroutine, on a thread forked from its parent's; evaluations of one
// session take turns under the session lock (see sched.go). No code path
// reaches the operating system except through the thread's host.Host.
//
// Commands resolve in a fixed order: session callables (with typed word
// binding), aliases, the builtin registry (see RegisterBuiltin; further
// builtins are added from init functions), scripts, and finally external
// programs found through Host.LookPath.
package eval
