package term_test

import (
	"bytes"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
)

// TestTranscripts runs testdata/*.txt, each in a fresh session on the
// standard registry with no terminal.
func TestTranscripts(t *testing.T) {
	evaltest.Run(t, func(t *testing.T) (evaltest.Session, *bytes.Buffer) {
		var out bytes.Buffer
		in, err := eval.New(eval.Options{Registry: stdlib.Registry(), Host: host.NewOS(host.AllowAll), Dir: t.TempDir(), Stdout: &out, Stderr: &out})
		if err != nil {
			t.Fatal(err)
		}
		return in, &out
	}, "testdata/*.txt")
}
