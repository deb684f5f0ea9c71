// Command shoal-mcp serves the Model Context Protocol over stdio on top of
// a Shoal kernel; see internal/mcp and docs/mcp.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/shoalgo/shoal/internal/mcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	mcp.LimitProcessMemory()
	in, out, restore := mcp.PollableStdio()
	if mcp.OneProcessor(os.Args[1:]) {
		runtime.GOMAXPROCS(1)
	}
	rin, rout := mcp.RawStdio(in, out)
	code := mcp.Main(ctx, os.Args[1:], rin, rout, os.Stderr)
	restore()
	stop()
	os.Exit(code)
}
