package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A real editor: headless Neovim attaches to the built `shoal lsp`,
// receives the diagnostics, completes, edits (incremental sync, non-ASCII
// text) and sees the diagnostics follow. Skipped when nvim is missing.
func TestNeovimAttaches(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not installed (Debian: apt-get install neovim); the editor test needs it")
	}
	script, err := filepath.Abs("testdata/nvim_attach.lua")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "demo.shl")
	if err := os.WriteFile(file, []byte("let items = [\"é😀\", \"b\"]\nitems.lenn()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(dir, "out.txt")
	home := t.TempDir()
	cmd := exec.Command(nvim, "--headless", "--clean", "-n", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_DATA_HOME=" + home, "XDG_STATE_HOME=" + home,
		"XDG_CACHE_HOME=" + home, "PATH=" + pathDir(t) + ":" + filepath.Dir(nvim),
		"SHOAL_BIN=" + shoalBin, "SHOAL_NVIM_OUT=" + outFile, "SHOAL_NVIM_DIR=" + dir, "SHOAL_NVIM_FILE=" + file}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nvim: %v\n%s", err, out)
	}
	b, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatalf("nvim wrote no report: %v\n%s", err, out)
	}
	report := string(b)
	for _, want := range []string{
		"diag 1:6 unknown method `.lenn`", // line 1, the method name's column
		"did you mean `len`",
		"item len",
		"after-edit 0",
		"hover ```text .len",
		"done",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
}
