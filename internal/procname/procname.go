// Package procname reads and sets the name the operating system keeps for
// this process (Linux: each thread's comm), which ps, top and pgrep show.
// A program re-executed from /proc/self/exe is named "exe" by the kernel;
// the programs that do so take a name back with Set.
package procname

// MaxLen is the longest name the kernel keeps (TASK_COMM_LEN less its
// terminating NUL); Set cuts a longer one to it, as the kernel would.
const MaxLen = 15
