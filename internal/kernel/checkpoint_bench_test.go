package kernel

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/value"
)

// BenchmarkCheckpointExec measures one exec round trip on a kernel with a
// state directory, with the session checkpointed after each statement
// ("on") and with checkpointing switched off for the session ("off", the
// floor): a statement that changes a binding (`n = n + 1`), one that binds
// the same value again (`let x = 1`) and one that changes nothing
// (`1 + 1`). The session holds twenty small bindings and a list of 10,000
// numbers, so a checkpoint re-encodes only what changed:
//
//	go test -run '^$' -bench CheckpointExec -count 5 ./internal/kernel/
func BenchmarkCheckpointExec(b *testing.B) {
	for _, mode := range []string{"off", "on"} {
		for _, src := range []string{"n = n + 1", "let x = 1", "1 + 1"} {
			b.Run(mode+"/"+src, func(b *testing.B) {
				base := loadTempDir(b)
				dir := filepath.Join(base, "work")
				if err := os.Mkdir(dir, 0o700); err != nil {
					b.Fatal(err)
				}
				sock := filepath.Join(base, "k.sock")
				l, err := Listen(sock, true)
				if err != nil {
					b.Fatal(err)
				}
				srv, err := New(Config{Version: "bench", Dir: dir, StateDir: filepath.Join(base, "state"),
					TokenStore: filepath.Join(base, "tokens.json"), Env: []string{"HOME=" + base, "PATH=/usr/bin:/bin"}})
				if err != nil {
					b.Fatal(err)
				}
				done := make(chan error, 1)
				go func() { done <- srv.Serve(l) }()
				b.Cleanup(func() {
					ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
					defer cancel()
					srv.Shutdown(ctx)
					if err := <-done; !errors.Is(err, ErrServerClosed) {
						b.Errorf("Serve returned %v", err)
					}
				})
				c, err := dialRaw(sock, "bench")
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				id := 10
				exec := func(src string) {
					id++
					resp, err := c.call(id, "exec", []byte(`{"src":`+strconv.Quote(src)+`}`))
					if err != nil {
						b.Fatal(err)
					}
					if resp.Error != nil {
						b.Fatalf("exec %q: error %d %s", src, resp.Error.Code, resp.Error.Message)
					}
				}
				for i := range 20 {
					exec("let v" + strconv.Itoa(i) + " = " + strconv.Itoa(i))
				}
				exec("let big = [" + bigList + "]")
				exec("var n = 0")
				if mode == "off" {
					for _, s := range srv.sessions.all() {
						s.ckpt = nil
					}
				}
				for b.Loop() {
					exec(src)
				}
			})
		}
	}
}

// bigList is the source of a list of 10,000 numbers.
var bigList = func() string {
	b := make([]byte, 0, 60000)
	for i := range 10000 {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(i), 10)
	}
	return string(b)
}()

// BenchmarkCheckpointNote measures the checkpoint's own work after a
// statement, in process: comparing twenty-two bindings with the last
// checkpoint when none changed (what every statement pays), and building
// a checkpoint when one small binding changed (the list of 10,000 numbers
// keeps its encoding).
func BenchmarkCheckpointNote(b *testing.B) {
	var bs []eval.Binding
	for i := range 20 {
		bs = append(bs, eval.Binding{Name: "v" + strconv.Itoa(i), Value: value.Int(i)})
	}
	items := make([]value.Value, 10000)
	for i := range items {
		items[i] = value.Int(i)
	}
	bs = append(bs, eval.Binding{Name: "big", Value: value.NewList(items)}, eval.Binding{Name: "n", Value: value.Int(0), Mutable: true})
	env := []string{"HOME=/home/u", "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	store := &checkpointStore{pending: map[sessionKey]*checkpointFile{}, kick: make(chan struct{}, 1)}
	key := sessionKey{"uid:1", "bench"}
	b.Run("unchanged", func(b *testing.B) {
		c := &checkpointer{store: store, limit: 1 << 20}
		c.build("/work", env, bs)
		for b.Loop() {
			c.note(key, "/work", env, bs)
		}
	})
	b.Run("one-changed", func(b *testing.B) {
		c := &checkpointer{store: store, limit: 1 << 20}
		c.build("/work", env, bs)
		i := 0
		for b.Loop() {
			i++
			bs[len(bs)-1].Value = value.Int(i)
			c.note(key, "/work", env, bs)
		}
	})
}
