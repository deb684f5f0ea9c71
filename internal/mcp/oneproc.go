package mcp

import "os"

// OneProcessor reports whether shoal-mcp, run with args once
// PollableStdio has served its stdin and stdout, should run its
// goroutines on one processor (runtime.GOMAXPROCS(1)); the binary
// decides this at start, before serving anything, and Main does not (a
// test that calls Main in its own process keeps its own setting).
//
// On one processor a goroutine made ready (the kernel client's caller,
// woken by its reader; a direct call started by stdin's reader) runs on
// the processor that readied it, where with two a second thread is woken
// for it, and on this VM each wake-up and context switch costs (issue
// 24, docs/performance.md "The facade: the eighth round"). It is so only
// when nothing of the facade's can hold the processor in a blocking
// system call for long: both stdin and stdout are pipes or sockets
// served by the runtime's poller (a terminal or a file as stdin would
// hold it in read(2) until the monitor thread takes it back), and the
// facade serves one client over stdio, not --http (many clients, each a
// request of its own). A GOMAXPROCS environment variable is the
// operator's choice and is left to the runtime; so are arguments Main
// would refuse, and --version.
func OneProcessor(args []string) bool {
	return oneProcessor(args, os.Getenv("GOMAXPROCS"), 0, 1)
}

// oneProcessor is OneProcessor with the environment's GOMAXPROCS and the
// descriptors of stdin and stdout given.
func oneProcessor(args []string, gomaxprocs string, in, out int) bool {
	if gomaxprocs != "" {
		return false
	}
	fs, o := mainFlags()
	if fs.Parse(args) != nil || fs.NArg() > 0 || o.version || o.http != "" {
		return false
	}
	return polledStdio(in) && polledStdio(out)
}
