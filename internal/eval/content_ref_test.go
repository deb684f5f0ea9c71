package eval

import (
	"context"
	"fmt"
	"github.com/shoalgo/shoal/internal/evaltest"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// fakeContent is an in-memory ContentSource: blobs maps a hash to its
// bytes, readable the hashes the session's principal may read.
type fakeContent struct {
	blobs    map[string][]byte
	readable map[string]bool
	asked    []string
}

func (f *fakeContent) Content(_ context.Context, hash string, max int64) ([]byte, error) {
	f.asked = append(f.asked, hash)
	b, ok := f.blobs[hash]
	if !ok || !f.readable[hash] {
		return nil, errorf(codeNotFound, "content %s is not stored or not readable by you", hash)
	}
	if int64(len(b)) > max {
		return nil, errorf(codeTooLarge, "content %s is %d bytes (max %d)", hash, len(b), max)
	}
	return b, nil
}

func hashOf(c byte) string { return "blake3:" + strings.Repeat(string(c), 64) }

// TestContentRefTranscript runs testdata/content_ref.txt.
func TestContentRefTranscript(t *testing.T) {
	hello, js, other, absent := hashOf('1'), hashOf('2'), hashOf('3'), hashOf('4')
	src := &fakeContent{
		blobs:    map[string][]byte{hello: []byte("hello, shoal"), js: []byte(`{"a":[1,2]}`), other: []byte("secret")},
		readable: map[string]bool{hello: true, js: true},
	}
	vars := strings.NewReplacer("$HELLO", "val:"+hello, "$JSON", "val:"+js, "$OTHER", "val:"+other,
		"$ABSENT", "val:"+absent, "$UPPER", "val:blake3:"+strings.Repeat("A", 64))
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: t.TempDir(), Content: src})
	if err != nil {
		t.Fatal(err)
	}
	cases := evaltest.RunFile(t, in, "testdata/content_ref.txt", nil, vars)
	if cases < 10 {
		t.Fatalf("only %d cases read", cases)
	}
	for _, h := range src.asked {
		if h == hashOf('A') {
			t.Fatal("an upper-case hex ref was resolved")
		}
	}
}

// TestContentRefWithoutStore: with no ContentSource a ref is not_found
// naming the journal/CAS, and ordinary strings are untouched.
func TestContentRefWithoutStore(t *testing.T) {
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ref := "val:" + hashOf('0')
	for _, m := range []string{"len", "str", "ref", "load"} {
		_, err := in.Eval(context.Background(), fmt.Sprintf("%q.%s", ref, m))
		e, ok := err.(*value.Error)
		if !ok || e.Code != codeNotFound || !strings.Contains(e.Error(), "journal/CAS") {
			t.Errorf(".%s on a ref without a store: %v, want not_found naming journal/CAS", m, err)
		}
	}
	v, err := in.Eval(context.Background(), `"hello".len`)
	if err != nil || value.Inline(v) != "5" {
		t.Fatalf(`"hello".len = %v, %v`, v, err)
	}
}
