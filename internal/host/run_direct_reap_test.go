package host

import (
	"context"
	"testing"
)

// TestRunReapsAfterPipesClose checks the path where the child closes its
// output well before it exits: the drain, done with both pipes, still
// waits for the child and returns its exit status and what it wrote.
func TestRunReapsAfterPipesClose(t *testing.T) {
	sh := prog(t, "sh")
	res, err := NewOS(AllowAll).Run(context.Background(), &Spawn{
		Argv: []string{sh, "-c", "echo out; echo err >&2; exec >&- 2>&-; sleep 0.2; exit 3"},
		Env:  []string{"PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.Status == nil || *res.Status != 3 {
		t.Fatalf("stdout %q, stderr %q, status %v", res.Stdout, res.Stderr, res.Status)
	}
}
