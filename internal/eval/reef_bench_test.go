package eval

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/trust"
	"github.com/shoalgo/shoal/internal/value"
)

// BenchmarkReefHead is what Reef adds to a spawn by bare name,
// `(^true).ok`, in a directory four levels below /tmp:
//
//	go test -run '^$' -bench ReefHead -benchmem -count 3 ./internal/eval/
//
// off: Options.Reef unset (PATH lookup only); unconstrained: discovery
// stats every candidate manifest up to / and finds none that names true;
// locked: a .reef.toml constrains true and reef.lock holds it, so each
// spawn also re-checks the lock file's metadata and the binary's digest
// (cached by size and mtime); trusted: locked, with the person's trust
// store (internal/trust) deciding instead of reef.TrustEverything, so each
// spawn also stats the store.
func BenchmarkReefHead(b *testing.B) {
	for _, mode := range []string{"off", "unconstrained", "locked", "trusted"} {
		b.Run(mode, func(b *testing.B) {
			dir := filepath.Join(b.TempDir(), "a", "b")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			locked := mode == "locked" || mode == "trusted"
			if locked {
				if err := os.WriteFile(filepath.Join(dir, ".reef.toml"), []byte("[tools]\ntrue = \"*\"\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			var pt reef.Trust = reef.TrustEverything
			if mode == "trusted" {
				st := trust.Open(filepath.Join(b.TempDir(), trust.FileName))
				if err := st.Trust(trust.ReadDir(dir), time.Now()); err != nil {
					b.Fatal(err)
				}
				pt = st
			}
			in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: dir, Env: spawnEnv, Reef: mode != "off", ProjectTrust: pt})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if locked {
				if _, err := in.Eval(ctx, "reef lock"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				v, err := in.Eval(ctx, "(^true).ok")
				if err != nil || v != value.Bool(true) {
					b.Fatalf("Eval = %v, %v", v, err)
				}
			}
		})
	}
}
