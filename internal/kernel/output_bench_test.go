package kernel_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
)

// BenchmarkTaskOutputStream measures a program printing 16 MiB at full
// speed through a real kernel with a state directory, its output spooled
// and published as output events ("streamed"), beside the same program
// with its output sent to /dev/null ("discarded", the floor), run as an
// exec and from a spawned language task:
//
//	go test -run '^$' -bench TaskOutputStream -count 5 ./internal/kernel/
func BenchmarkTaskOutputStream(b *testing.B) {
	const size = 16 << 20
	base, err := os.MkdirTemp("", "kb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(base)
	sock, dir, state := filepath.Join(base, "k.sock"), filepath.Join(base, "work"), filepath.Join(base, "state")
	for _, d := range []string{dir, state} {
		if err := os.Mkdir(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	l, err := kernel.Listen(sock, true)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := kernel.New(kernel.Config{Version: "bench", TokenStore: filepath.Join(base, "tokens.json"), Dir: dir,
		StateDir: state, Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"}})
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(l)
	defer srv.Shutdown(context.Background())
	ctx := context.Background()
	c, err := client.Dial(ctx, sock)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Attach(ctx, client.AttachParams{Session: "bench"}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, src string }{
		{"discarded", "sh { head -c 16777216 /dev/zero > /dev/null }"},
		{"streamed", "sh { head -c 16777216 /dev/zero }"},
		// The same from a language task, awaited: its output goes through
		// the sink its task hook hands it (langoutput.go).
		{"spawn-discarded", "(spawn { sh { head -c 16777216 /dev/zero > /dev/null }; null }).await()"},
		{"spawn-streamed", "(spawn { sh { head -c 16777216 /dev/zero }; null }).await()"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				if _, err := c.Exec(ctx, client.ExecParams{Src: bc.src}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
