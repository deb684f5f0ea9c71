package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptAndCompletionKeysOnTheScreen (28, 29): every prompt and
// completion key the configuration accepts is visible on the screen: the
// git_status, reef, principal, leash and cmd_duration modules, the right
// prompt, the transient prompt, and case-insensitive and fuzzy Tab
// completion (off by default).
func TestPromptAndCompletionKeysOnTheScreen(t *testing.T) {
	bin := buildShoal(t)
	t.Run("prompt modules", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		home, config := t.TempDir(), t.TempDir()
		git := func(dir string, args ...string) {
			t.Helper()
			cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t",
				"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		up := filepath.Join(home, "up")
		os.MkdirAll(up, 0o755)
		git(up, "init", "-q", "-b", "main")
		git(up, "commit", "-q", "--allow-empty", "-m", "one")
		git(home, "clone", "-q", up, "proj")
		proj := filepath.Join(home, "proj")
		git(proj, "commit", "-q", "--allow-empty", "-m", "two") // ahead of origin/main by one
		mustWrite(t, filepath.Join(proj, "staged.txt"), "s\n")
		git(proj, "add", "staged.txt")
		mustWrite(t, filepath.Join(proj, "untracked.txt"), "u\n")

		mustWrite(t, filepath.Join(config, "shoal", "shoal.toml"), "[reef.tools]\nsh = \"*\"\n")
		mustWrite(t, filepath.Join(config, "shoal", "prompt.toml"), `[format]
left = "$directory$git_branch$git_status$reef$principal$leash$cmd_duration$character"
right = "RIGHT$exit_status"
transient = "T$character"
[transient]
enabled = true
[module.cmd_duration]
min_ms = 500
format = "took $duration "
`)
		r := startConfigScreen(t, bin, proj, home, config, "~/proj (main) [+?⇡1] (sh@*) tester [allow-all] > ")
		// The right prompt is drawn after the left one: wait for it on the
		// prompt's row before counting it.
		r.waitRow("the right prompt", func(row string) bool {
			return strings.HasPrefix(row, "~/proj (main)") && strings.HasSuffix(strings.TrimSpace(row), "RIGHT")
		})
		if r.count("RIGHT") != 1 {
			t.Errorf("no right prompt:\n%s", r.screenText())
		}
		if r.count("warning") != 0 {
			t.Errorf("a warning for accepted keys:\n%s", r.screenText())
		}
		r.send("sleep 1s\r")
		r.waitRow("the transient prompt", func(row string) bool { return strings.TrimSpace(row) == "T> sleep 1s" })
		r.waitRow("cmd_duration", func(row string) bool {
			return strings.Contains(row, "[allow-all] took 1") && strings.Contains(row, "RIGHT")
		})
		r.send("1 / 0\r")
		r.waitRow("the right prompt with the status", func(row string) bool {
			return strings.HasPrefix(row, "~/proj (main)") && strings.HasSuffix(strings.TrimSpace(row), "RIGHT[1]")
		})
		if r.count("took") != 0 { // the long line's prompt became transient; a quick line shows none
			t.Errorf("cmd_duration shown for a quick line:\n%s", r.screenText())
		}
	})
	t.Run("completion", func(t *testing.T) {
		home := t.TempDir()
		for _, f := range []string{"README.md", "readings.txt"} {
			mustWrite(t, filepath.Join(home, f), "x\n")
		}
		// Off by default: neither a case-folded nor a fuzzy match is taken.
		plain := t.TempDir()
		r := startConfigScreen(t, bin, home, home, plain, "~ > ")
		r.send("cat readm\t")
		r.send("!")
		r.waitRow("the word kept as typed", func(row string) bool { return strings.Contains(row, "~ > cat readm!") })
		r.send("\x03")

		on := t.TempDir()
		mustWrite(t, filepath.Join(on, "shoal", "shoal.toml"), "[completion]\nfuzzy = true\ncase_insensitive = true\n")
		r = startConfigScreen(t, bin, home, home, on, "~ > ")
		r.send("cat readm\t")
		r.waitRow("case-insensitive completion", func(row string) bool { return strings.Contains(row, "~ > cat README.md") })
		r.send("\x03")
		r.waitRow("a fresh prompt", func(row string) bool { return strings.TrimSpace(row) == "~ >" })
		r.send("cat rdngs\t")
		r.waitRow("fuzzy completion", func(row string) bool { return strings.Contains(row, "~ > cat readings.txt") })
	})
}
