package fs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/libtest"
	"github.com/shoalgo/shoal/internal/value"
)

// keepWriting calls write every 20 ms until stop is closed, so a live
// source started at an unknown moment still sees a change.
func keepWriting(t *testing.T, write func(i int)) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				write(i)
			}
		}
	}()
	return func() { close(done); <-finished }
}

// appendLine is a keepWriting step that appends "line N" to the file at
// log.
func appendLine(log string) func(i int) {
	return func(i int) {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			fmt.Fprintf(f, "line %d\n", i)
			f.Close()
		}
	}
}

func evalTimeout(t *testing.T, in *eval.Interp, src string) (value.Value, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return in.Eval(ctx, src)
}

func TestTailStream(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("live sources are exercised on Linux")
	}
	in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"app.log": "old line\n"})
	log := filepath.Join(dir, "app.log")
	stop := keepWriting(t, appendLine(log))
	defer stop()
	v, err := evalTimeout(t, in, `tail(path("app.log")).where(.starts_with("line")).take(2).collect()`)
	if err != nil {
		t.Fatal(err)
	}
	got := value.Inline(v)
	if !strings.HasPrefix(got, `["line `) || strings.Contains(got, "old") {
		t.Errorf("tail = %s", got)
	}
	v, err = evalTimeout(t, in, `tail("app.log", from_start: true).take(1).collect()`)
	if err != nil || value.Inline(v) != `["old line"]` {
		t.Errorf("tail from_start = %v, %v", v, err)
	}
}

func TestWatchStream(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("live sources are exercised on Linux")
	}
	in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"d/": ""})
	stop := keepWriting(t, func(i int) {
		_ = os.WriteFile(filepath.Join(dir, "d", fmt.Sprintf("f%d.txt", i)), nil, 0o644)
		_ = os.WriteFile(filepath.Join(dir, "d", fmt.Sprintf("g%d.log", i)), nil, 0o644)
	})
	defer stop()
	v, err := evalTimeout(t, in, `let e = watch(path("d")).where(.kind == "created").take(1).collect()[0]
[e.kind, e.path.parent.name, e.ts.year > 2000]`)
	if err != nil || value.Inline(v) != `["created", "d", true]` {
		t.Fatalf("watch = %v, %v", v, err)
	}
	// A glob keeps only the paths it matches.
	v, err = evalTimeout(t, in, `watch(glob("d/*.log")).take(3).collect().map(e => e.path.ext)`)
	if err != nil || value.Inline(v) != `["log", "log", "log"]` {
		t.Fatalf("watch(glob) = %v, %v", v, err)
	}
}

func TestLiveSourcesRefuseBadArguments(t *testing.T) {
	in, _ := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"a.txt": "x"})
	for src, code := range map[string]string{
		`watch()`:                           value.CodeArg,
		`watch(1)`:                          value.CodeType,
		`watch(path("."), deep: true)`:      value.CodeArg,
		`watch(path("."), recursive: 1)`:    value.CodeType,
		`watch(path("missing"))`:            value.CodeNotFound,
		`tail()`:                            value.CodeArg,
		`tail(path("a.txt"), follow: true)`: value.CodeArg,
		`tail(path("missing"))`:             value.CodeNotFound,
	} {
		if _, err := evalTimeout(t, in, src); evaltest.Code(err) != code {
			t.Errorf("%s: %v (code %q), want %s", src, err, evaltest.Code(err), code)
		}
	}
}

// TestTailCancelled: a consumer blocked on a quiet file ends with
// cancelled when its evaluation is cancelled.
func TestTailCancelled(t *testing.T) {
	in, _ := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"a.txt": "x\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := in.Eval(ctx, `tail(path("a.txt")).each(l => l)`); evaltest.Code(err) != "cancelled" {
		t.Errorf("blocked tail after cancel: %v", err)
	}
}

// TestMergeLiveSourcesByReadiness merges a quiet watch with a busy tail:
// the merge must deliver the tail's lines rather than wait on the watch.
func TestMergeLiveSourcesByReadiness(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("live sources are exercised on Linux")
	}
	in, dir := libtest.Session(t, host.NewOS(host.AllowAll), map[string]string{"quiet/": "", "app.log": ""})
	log := filepath.Join(dir, "app.log")
	stop := keepWriting(t, appendLine(log))
	defer stop()
	v, err := evalTimeout(t, in, `watch(path("quiet")).merge(tail(path("app.log"))).take(2).collect().len()`)
	if err != nil || value.Inline(v) != "2" {
		t.Fatalf("merge = %v, %v", v, err)
	}
}
