//go:build linux

package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/client"
)

// A principal that may delete files owns a trash in the kernel's state
// directory, which only rm's and undo's own moves reach: through the real
// kernel binary, an agent with read, write and delete grants on its work
// directory removes a file (it lands in the trash), then tries to plant a
// file of its choosing in the trash by every builtin that writes, copies,
// moves, links or makes directories, and to read the removed file back;
// each attempt fails, nothing appears in the trash but what rm put there,
// and undo still brings the file back.
func TestHostileTrashCannotBePlanted(t *testing.T) {
	base, err := os.MkdirTemp("", "hplant")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	pol := filepath.Join(base, "policy.toml")
	w := fmt.Sprintf("%s/hk*/work/**", os.TempDir())
	text := fmt.Sprintf("[principal.\"agent:planter\"]\nopaque = \"allow\"\njournal_read = true\n[principal.\"agent:planter\".fs]\nread = [%q]\nwrite = [%q]\ndelete = [%q]\n", w, w, w)
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	k := Start(t, Options{Flags: []string{"--policy", pol}})
	agent := k.Attach(t, "planter", k.Token(t, "agent:planter"))
	ctx := Ctx(t)
	work := k.Dir
	if err := os.WriteFile(filepath.Join(work, "victim.txt"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "payload.sh"), []byte("#!/bin/sh\necho planted\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := agent.Exec(ctx, client.ExecParams{Src: "(rm victim.txt).first().trash.str()"})
	if err != nil {
		t.Fatalf("rm: %v", err)
	}
	var item string
	if err := decodeStr(res.Value, &item); err != nil {
		t.Fatalf("rm's trash path: %v (%s)", err, res.Value)
	}
	trashDir := filepath.Dir(item)
	if got, err := os.ReadFile(item); err != nil || string(got) != "kept" {
		t.Fatalf("the trash item %s: %q, %v", item, got, err)
	}
	planted := filepath.Join(trashDir, "planted")
	attempts := []string{
		fmt.Sprintf(`save %q "echo planted"`, planted),
		fmt.Sprintf(`save(%q, "echo planted")`, planted),
		fmt.Sprintf(`"echo planted".save(%q)`, planted),
		fmt.Sprintf(`"echo planted".append(%q)`, planted),
		fmt.Sprintf(`cp payload.sh %q`, planted),
		fmt.Sprintf(`mv payload.sh %q`, planted),
		fmt.Sprintf(`ln payload.sh %q`, planted),
		fmt.Sprintf(`ln -s payload.sh %q`, planted),
		fmt.Sprintf(`mkdir %q`, planted),
		fmt.Sprintf(`touch %q`, planted),
		fmt.Sprintf(`cat %q`, item),
		fmt.Sprintf(`rm --permanent %q`, item),
	}
	for _, src := range attempts {
		res, err := agent.Exec(ctx, client.ExecParams{Src: src})
		if err == nil && (res.Verdict == "" || res.Verdict == "allow") {
			t.Errorf("%s: succeeded (%s)", src, res.Value)
		}
		if _, err := os.Lstat(planted); err == nil {
			t.Fatalf("%s planted %s", src, planted)
		}
	}
	if got, err := os.ReadFile(item); err != nil || string(got) != "kept" {
		t.Fatalf("the trash item changed: %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(work, "payload.sh")); err != nil {
		t.Fatalf("the payload moved: %v", err)
	}
	if _, err := agent.Exec(ctx, client.ExecParams{Src: "undo"}); err != nil {
		t.Fatalf("undo of the rm: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(work, "victim.txt")); err != nil || string(got) != "kept" {
		t.Fatalf("undo did not bring the file back: %q, %v", got, err)
	}
	k.Alive(t)
}
