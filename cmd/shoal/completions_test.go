package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// completionScript writes shoal's script for shell into a temp file, from
// the built binary, and returns its path and an empty directory to
// complete in (so no file names mix with the subcommands).
func completionScript(t *testing.T, shell string) (script, dir string) {
	t.Helper()
	if _, err := exec.LookPath(shell); err != nil {
		t.Skipf("%s is not installed (Debian package %s; .ci/run installs it): %v", shell, shell, err)
	}
	out, errs, code := runShoal(t, t.TempDir(), "", "completions", shell)
	if code != 0 || errs != "" {
		t.Fatalf("shoal completions %s: code %d err %q", shell, code, errs)
	}
	script = filepath.Join(t.TempDir(), "shoal."+shell)
	if err := os.WriteFile(script, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return script, t.TempDir()
}

// runShell runs a shell program; the deadline only stops a hung shell
// from hanging the test run, it asserts nothing about time.
func runShell(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	return string(out)
}

// wantSubcommands checks that every subcommand of the table is offered.
func wantSubcommands(t *testing.T, got string) {
	t.Helper()
	for _, name := range subcommandNames() {
		if !strings.Contains(got, name) {
			t.Errorf("completing `shoal <Tab>` does not offer %s:\n%s", name, got)
		}
	}
}

func TestCompletionsBash(t *testing.T) {
	script, dir := completionScript(t, "bash")
	out := runShell(t, dir, "bash", "--norc", "--noprofile", "-c", `source "$1" || exit 3
complete -p shoal
COMP_WORDS=(shoal ""); COMP_CWORD=1; _shoal
echo "subcommands: ${COMPREPLY[*]}"
COMP_WORDS=(shoal --k); COMP_CWORD=1; _shoal
echo "flags: ${COMPREPLY[*]}"
COMP_WORDS=(shoal completions ""); COMP_CWORD=2; _shoal
echo "shells: ${COMPREPLY[*]}"`, "bash", script)
	if !strings.Contains(out, "complete -o filenames -F _shoal shoal") {
		t.Fatalf("not registered:\n%s", out)
	}
	sub := out[strings.Index(out, "subcommands:"):]
	wantSubcommands(t, strings.SplitN(sub, "\n", 2)[0])
	if !strings.Contains(out, "flags: --keep-cwd --kernel") || !strings.Contains(out, "shells: bash zsh fish") {
		t.Fatalf("flags or shells missing:\n%s", out)
	}
}

func TestCompletionsZsh(t *testing.T) {
	script, dir := completionScript(t, "zsh")
	// A real zsh, interactive on a pseudo-terminal (zpty), completes
	// `shoal <Tab>` with compinit's machinery; the listing is read until
	// it shows the last subcommand in zsh's (sorted) order.
	names := subcommandNames()
	slices.Sort(names)
	last := names[len(names)-1]
	prog := `zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z 'PS1="%% "; autoload -Uz compinit; compinit -u -D; source ` + shellQuote(script) + `; zstyle ":completion:*" list-prompt ""; LISTMAX=0; print LOADED-$+functions[_shoal]-$+_comps[shoal]'
zpty -r z line '*LOADED-[01]-[01]*'
print -r -- "$line"
zpty -w -n z $'shoal \t'
zpty -r z acc '*` + last + `*'
print -r -- "listing: ${acc//[^a-z -]/}"
zpty -d z`
	out := runShell(t, dir, "zsh", "-f", "-c", prog)
	if !strings.Contains(out, "LOADED-1-1") {
		t.Fatalf("the script did not load and register _shoal:\n%s", out)
	}
	i := strings.Index(out, "listing:")
	if i < 0 {
		t.Fatalf("no listing:\n%s", out)
	}
	wantSubcommands(t, out[i:])
}

func TestCompletionsFish(t *testing.T) {
	script, dir := completionScript(t, "fish")
	out := runShell(t, dir, "fish", "--no-config", "-c", "source $argv[1]; or exit 3; complete -C 'shoal '; echo ---; complete -C 'shoal completions '", script)
	parts := strings.SplitN(out, "---", 2)
	if len(parts) != 2 || strings.Contains(out, "Error") {
		t.Fatalf("fish output:\n%s", out)
	}
	wantSubcommands(t, parts[0])
	for _, sh := range []string{"bash", "zsh", "fish"} {
		if !strings.Contains(parts[1], sh) {
			t.Errorf("shoal completions <Tab> lacks %s:\n%s", sh, parts[1])
		}
	}
}

func TestCompletionsUsage(t *testing.T) {
	if _, errs, code := runShoal(t, t.TempDir(), "", "completions", "tcsh"); code != 2 || !strings.Contains(errs, "bash|zsh|fish") {
		t.Fatalf("unknown shell: code %d err %q", code, errs)
	}
}
