package sys_test

import (
	"bytes"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
)

// TestTranscripts runs testdata/*.txt, each in a fresh session on the
// standard registry with a fixed environment.
func TestTranscripts(t *testing.T) {
	evaltest.Run(t, func(t *testing.T) (evaltest.Session, *bytes.Buffer) {
		in, err := eval.New(eval.Options{Registry: stdlib.Registry(), Host: host.NewOS(host.AllowAll), Dir: t.TempDir(),
			Env: []string{"HOME=/home/u", "USER=ada", "PATH=/usr/bin:/bin"}})
		if err != nil {
			t.Fatal(err)
		}
		return in, nil
	}, "testdata/*.txt")
}
