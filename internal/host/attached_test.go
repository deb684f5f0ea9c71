package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/shoalgo/shoal/internal/contain"
)

// TestStartAttached: a refused proc_spawn starts nothing (attach is never
// called, the file the program would make is not there); an allowed one
// runs with the caller's stdio and environment in the host's scope, and
// Wait reaps it with its status.
func TestStartAttached(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "made")
	sh := prog(t, "sh")
	spawn := &Spawn{Argv: []string{sh, "-c", "echo $GREETING > " + made + "; exit 3"}, Dir: dir, Env: []string{"GREETING=hi"}}

	rec := &recorder{deny: func(op Op) bool { return op.Effect == ProcSpawn }}
	called := false
	_, err := newOS(rec).StartAttached(context.Background(), spawn, func(*exec.Cmd) { called = true })
	var denied *DeniedError
	if !errors.As(err, &denied) || called {
		t.Fatalf("denied spawn: %v, attach called %v", err, called)
	}
	if _, err := os.Stat(made); err == nil {
		t.Fatal("the denied program ran")
	}

	m := contain.New(contain.Config{})
	defer m.Close()
	scope := m.NewScope()
	defer scope.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	a, err := newOS(AllowAll, WithProcesses(scope)).StartAttached(context.Background(), spawn, func(cmd *exec.Cmd) {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.Pid() <= 0 {
		t.Fatalf("pid %d", a.Pid())
	}
	ws, err := a.Wait()
	if err != nil || ws.ExitStatus() != 3 {
		t.Fatalf("wait: %v, status %d", err, ws.ExitStatus())
	}
	if b, err := os.ReadFile(made); err != nil || string(b) != "hi\n" {
		t.Fatalf("the program wrote %q, %v", b, err)
	}
	a.Kill() // after the reap: signals nothing reused
}
