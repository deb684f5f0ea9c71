package mcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/mcp"
)

// BenchmarkDirectInProcess: shoal_exec's direct path with the facade in
// this process (Main on pipes served as the binary serves its stdio) and
// a real kernel, driven by a raw client of fixed frames, so that
// -benchmem counts the facade's allocations a call (the raw client's are
// a line read and a frame written). Run it with -cpu 1, as shoal-mcp runs.
func BenchmarkDirectInProcess(b *testing.B) {
	k := newBase(b)
	k.start(b)
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	rin, rout := mcp.RawStdio(inR, outW)
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- mcp.Main(cctx, []string{"--socket", k.sock, "--no-autostart"}, rin, rout, io.Discard)
	}()
	defer func() {
		inW.Close()
		cancel()
		<-done
		outR.Close()
	}()
	r := bufio.NewReaderSize(outR, 1<<16)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	line := func() string {
		l, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		return l
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	line()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := func(id int) string {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"shoal_exec","arguments":{"src":"[3, 1, 2].sort()"}}}`, id))
		return line()
	}
	if l := call(2); !strings.Contains(l, `"isError":false`) && strings.Contains(l, `"isError"`) || !strings.Contains(l, `"result"`) {
		b.Fatalf("answer: %s", l)
	}
	before := mcp.DirectCalls()
	id := 3
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		call(id)
		id++
	}
	b.StopTimer()
	if mcp.DirectCalls()-before != int64(id-3) {
		b.Fatalf("%d calls, %d direct", id-3, mcp.DirectCalls()-before)
	}
}
