package host

// holdWriteEndsOn: runDirect keeps its own copies of the child's stdout
// and stderr write ends open until the child has exited, when it can poll
// the child's exit (a pidfd), so that the drain wakes once, at the
// exit, not at a pipe's hang-up and again for the exit. Off only in
// BenchmarkSpawnDirectAB.
//
// Why: a process that exits closes its descriptors (the pipes hang up)
// before it becomes a zombie (its pidfd turns readable and SIGCHLD is
// sent), in the same exit. With only the child holding the write ends,
// the drain's poll woke at the first hang-up, read end of file, polled
// again and could sleep until the second pipe or the exit, or in wait4:
// on this VM every sleep and wake-up is two costly context switches, on
// the critical path between the child's exit and the answer, which the
// floor (fork, exec, one wait4) pays once. Held open here, neither pipe
// can hang up before the exit; the exit wakes the poll once, the write
// ends are closed, and the pipes are read to their end without sleeping
// unless a descendant still holds them (then the wait delay applies, as
// before). A child that closes its output early is still drained: the
// poll watches the pipes for data throughout.
var holdWriteEndsOn = true
