package eval

import (
	"context"
	"github.com/shoalgo/shoal/internal/evaltest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
)

// TestOnTranscript runs testdata/on.txt.
func TestOnTranscript(t *testing.T) {
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if n := evaltest.RunFile(t, in, "testdata/on.txt", nil, nil); n < 13 {
		t.Fatalf("only %d cases read", n)
	}
}

// syncBuffer is a session output safe to read while handlers write.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOnHandlerOutput: a handler's output reaches the session's output:
// echo as its last expression (the documented form), echo in statement
// position, an external command; a number it returns is a result and is
// not shown.
func TestOnHandlerOutput(t *testing.T) {
	var out syncBuffer
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: t.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx := context.Background()
	for _, src := range []string{
		`let a = on(channel("user.builds"), event => { echo (event.payload) })`,
		`let b = on("user.stmt", e => { echo "stmt {e.payload}"; null })`,
		`let c = on("user.ext", e => { ^sh -c "echo ext $1" x (e.payload) })`,
		`let d = on("user.num", e => { channel("user.num.done").emit(e.payload); 12345 })`,
		`channel("user.builds").emit({id: 42, state: "started"})`,
		`channel("user.stmt").emit(1)`,
		`channel("user.ext").emit(2)`,
		`channel("user.num").emit(3)`,
		`channel("user.num").emit(4)`,
		// The second call has started, so the first call's result has
		// been shown or dropped.
		`channel("user.num.done").events().take(2).collect()`,
	} {
		if _, err := in.Eval(ctx, src); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
	}
	want := []string{`{id: 42, state: "started"}` + "\n", "stmt 1\n", "ext 2\n"}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := out.String()
		missing := ""
		for _, w := range want {
			if !strings.Contains(got, w) {
				missing = w
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("output %q never showed %q", got, missing)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := in.Eval(ctx, `a.cancel(); b.cancel(); c.cancel(); d.cancel()`); err != nil {
		t.Fatal(err)
	}
	if err := in.WaitTasks(ctx); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "12345") {
		t.Errorf("a handler's number was shown: %q", out.String())
	}
}
