package kernel_test

import (
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

// The journal and history builtins read the kernel's journal, scoped as
// journal.query is: the owner sees every row, a principal without
// journal_read is refused before anything runs.
func TestE2EJournalBuiltins(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	k := journalKernel(t, sock, dir, store, filepath.Join(filepath.Dir(dir), "state"))
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	mute := k.attached(t, "m", k.token(t, "agent:mute"))
	for _, src := range []string{"1 + 1", "ls .", "pwd"} {
		if _, err := owner.Exec(ctx, client.ExecParams{Src: src}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mute.Exec(ctx, client.ExecParams{Src: "2 + 2"}); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{
		`(journal --head=ls).map(.src) == ["ls ."]`:               "true",
		`(history --head=pwd --limit=1).map(.src) == ["pwd"]`:     "true",
		`(journal --principal=agent:mute).map(.src) == ["2 + 2"]`: "true",
		`(journal --effect=fs_read).map(.src) == ["ls ."]`:        "true",
		`(journal --head=pwd).first().finished`:                   "true",
		`(journal --head=1).first().id > 0`:                       "true",
		`try { journal --effect=fs_bogus } catch e { e.code }`:    "arg_error",
		`try { undo 99999 } catch e { e.code }`:                   "not_found",
	} {
		r, err := owner.Exec(ctx, client.ExecParams{Src: src})
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if r.Render != want {
			t.Errorf("%s = %s, want %s", src, r.Render, want)
		}
	}
	// agent:mute has no journal_read: the plan of `journal` is refused.
	wantCode(t, "mute journal", mute.Call(ctx, "exec", map[string]any{"src": "journal"}, nil), proto.CodeLeashDenied)
}
