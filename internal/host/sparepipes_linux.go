package host

import "golang.org/x/sys/unix"

// maxSparePipes bounds the pipes made ahead for the next direct spawns
// (two descriptors each), process-wide.
const maxSparePipes = 2

// sparePipes holds pipes made ahead (close-on-exec, never handed to any
// child, nothing written to them): runDirect takes its stdout and stderr
// pipes from here and makes the next ones while its child runs, so that
// the two pipe2(2) calls are not between the request and the fork, on
// the spawn's critical path, but beside the child's exec, when the
// forking thread would otherwise only wait.
var sparePipes = make(chan [2]int, maxSparePipes)

// sparePipesOn turns the spare pipes off for BenchmarkSpawnDirectAB.
var sparePipesOn = true

// takePipe fills p with a spare pipe, or a new one when none is left.
func takePipe(p *[2]int) error {
	if !sparePipesOn {
		return unix.Pipe2(p[:], unix.O_CLOEXEC)
	}
	select {
	case q := <-sparePipes:
		*p = q
		return nil
	default:
		return unix.Pipe2(p[:], unix.O_CLOEXEC)
	}
}

// refillPipes makes spare pipes until there are maxSparePipes, at most n
// of them (the ones the caller took). A pipe the store has no room for
// (another spawn refilled it first) is closed.
func refillPipes(n int) {
	if !sparePipesOn {
		return
	}
	for range n {
		if len(sparePipes) == cap(sparePipes) {
			return
		}
		var p [2]int
		if unix.Pipe2(p[:], unix.O_CLOEXEC) != nil {
			return
		}
		select {
		case sparePipes <- p:
		default:
			unix.Close(p[0])
			unix.Close(p[1])
			return
		}
	}
}
