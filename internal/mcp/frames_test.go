package mcp

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
)

type bufCloser struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *bufCloser) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *bufCloser) Close() error { return nil }
func (b *bufCloser) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestCheckedInput: JSON lines pass through in order; a line that is not
// JSON, or is longer than MaxFrame, is answered -32700 on the output and
// dropped; blank lines vanish; the end of input ends the reader.
func TestCheckedInput(t *testing.T) {
	long := `{"x":"` + strings.Repeat("a", MaxFrame) + `"}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,`,
		``,
		`   `,
		long,
		`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") // the last line has no newline
	out := &bufCloser{}
	r := checkedInput(io.NopCloser(strings.NewReader(in)), &lockedWriter{w: out})
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `[{"jsonrpc":"2.0","id":3,"method":"ping"}]` + "\n" + `{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n"
	if string(got) != want {
		t.Errorf("passed through %q, want %q", got, want)
	}
	if n := strings.Count(out.String(), `"code":-32700`); n != 3 {
		t.Errorf("%d parse errors answered, want 3: %q", n, out.String())
	}
}
