package kernel

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// serveBench serves a kernel for a benchmark on base/k.sock, working in
// base/work (made here) with its state in state, until the benchmark's
// cleanup; cfg's Version, Dir, StateDir, TokenStore (default
// base/tokens.json) and Env are filled in. It returns the socket path.
func serveBench(b *testing.B, base, state string, cfg Config) string {
	b.Helper()
	dir := filepath.Join(base, "work")
	if err := os.Mkdir(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	sock := filepath.Join(base, "k.sock")
	l, err := Listen(sock, true)
	if err != nil {
		b.Fatal(err)
	}
	cfg.Version, cfg.Dir, cfg.StateDir = "bench", dir, state
	if cfg.TokenStore == "" {
		cfg.TokenStore = filepath.Join(base, "tokens.json")
	}
	cfg.Env = []string{"HOME=" + base, "PATH=/usr/bin:/bin"}
	srv, err := New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	})
	return sock
}
