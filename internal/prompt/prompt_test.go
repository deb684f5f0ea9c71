package prompt

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/userconfig"
)

func osRead(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a file")
	}
	return io.ReadAll(io.LimitReader(f, int64(limit)))
}

func TestRenderDefault(t *testing.T) {
	p := &userconfig.Default().Prompt
	cases := []struct {
		name string
		s    State
		want string
	}{
		{"home", State{Dir: "/home/ann", Home: "/home/ann"}, "~ > "},
		{"under home", State{Dir: "/home/ann/src/shoal", Home: "/home/ann"}, "~/src/shoal > "},
		{"not under home", State{Dir: "/home/annex", Home: "/home/ann"}, "/home/annex > "},
		{"branch", State{Dir: "/srv/app", Home: "/home/ann", Branch: "main"}, "/srv/app (main) > "},
		{"failed", State{Dir: "/tmp", Status: 3}, "/tmp [3] > "},
		{"root", State{Dir: "/", Home: "/root"}, "/ > "},
	}
	for _, c := range cases {
		if got := Render(p, c.s); got != c.want {
			t.Errorf("%s: Render = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestRenderColourAndModules(t *testing.T) {
	p := &userconfig.Default().Prompt
	got := Render(p, State{Dir: "/tmp", Status: 1, Color: true})
	if !strings.Contains(got, "\x1b[36;1m/tmp \x1b[0m") {
		t.Errorf("directory not styled cyan bold: %q", got)
	}
	if !strings.Contains(got, "\x1b[31;1m[1] \x1b[0m") {
		t.Errorf("status not styled with the palette's error: %q", got)
	}
	if !strings.HasSuffix(got, "\x1b[31;1m> \x1b[0m") {
		t.Errorf("character not in the error style after a failure: %q", got)
	}

	p.Format.Left = "${username}$hostname$time $jobs$$ $nosuch$character"
	p.Module.Username.ShowAlways = true
	p.Module.Character.SuccessSymbol = "❯ "
	s := State{Dir: "/", User: "ann", Host: "box", Now: time.Date(2026, 12, 1, 9, 5, 7, 0, time.UTC), Jobs: 2}
	if got, want := Render(p, s), "ann@09:05:07 ✦2 $ $nosuch❯ "; got != want {
		t.Errorf("modules: %q, want %q", got, want)
	}
	s.SSH = true
	if got := Render(p, s); !strings.HasPrefix(got, "ann@box 09:05:07") {
		t.Errorf("hostname over SSH: %q", got)
	}
	if u := Unknown(p.Format.Left); len(u) != 1 || u[0] != "nosuch" {
		t.Errorf("Unknown = %v", u)
	}
}

func TestRenderTemplateAndTruncation(t *testing.T) {
	p := &userconfig.Default().Prompt
	p.Template = "{cwd} on {branch}"
	if got, want := Render(p, State{Dir: "/home/a/x", Home: "/home/a", Branch: "dev"}), "~/x on dev "; got != want {
		t.Errorf("template: %q, want %q", got, want)
	}
	p.Template = ""
	p.Module.Directory.TruncateTo = 2
	p.Module.GitBranch.TruncateTo = 4
	if got, want := Render(p, State{Dir: "/a/b/c/d", Branch: "feature/long"}), "c/d (feat…) > "; got != want {
		t.Errorf("truncated: %q, want %q", got, want)
	}
	if got := Continuation(p, State{}); got != "... " {
		t.Errorf("continuation %q", got)
	}
}

func TestGitBranch(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "a", "b", "c")
	mk := func(p string) {
		t.Helper()
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		mk(filepath.Dir(p))
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk(deep)
	write(filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	if got := GitBranch(deep, osRead); got != "main" {
		t.Errorf("walk up: %q", got)
	}
	if got := GitBranch(root, osRead); got != "" {
		t.Errorf("outside a repository: %q", got)
	}
	write(filepath.Join(repo, ".git", "HEAD"), "0123456789abcdef0123456789abcdef01234567\n")
	if got := GitBranch(repo, osRead); got != "0123456" {
		t.Errorf("detached: %q", got)
	}
	// A worktree: .git is a file naming the git directory.
	wt := filepath.Join(root, "wt")
	write(filepath.Join(root, "gitdirs", "wt", "HEAD"), "ref: refs/heads/m2\n")
	write(filepath.Join(wt, ".git"), "gitdir: ../gitdirs/wt\n")
	if got := GitBranch(filepath.Join(wt), osRead); got != "m2" {
		t.Errorf("worktree: %q", got)
	}
	// A hostile branch name cannot move the cursor.
	write(filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/x\x1b[2J\n")
	if got := GitBranch(repo, osRead); got != "x[2J" {
		t.Errorf("control characters kept: %q", got)
	}
}

func TestStrftime(t *testing.T) {
	tm := time.Date(2026, 3, 4, 15, 6, 7, 0, time.UTC)
	if got, want := Strftime("%Y-%m-%d %H:%M:%S %I%p %% %q", tm), "2026-03-04 15:06:07 03PM % %q"; got != want {
		t.Errorf("Strftime = %q, want %q", got, want)
	}
}

// FuzzExpand: format strings never panic, and text without `$` is kept.
func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "$", "$$", "${", "${}", "$directory", "${a}b$c", "plain text", "$x$"} {
		f.Add(s)
	}
	p := &userconfig.Default().Prompt
	f.Fuzz(func(t *testing.T, format string) {
		p.Format.Left = format
		_ = Render(p, State{Dir: "/x", Status: 1, Branch: "b"})
		_ = Unknown(format)
		if !strings.Contains(format, "$") {
			if got := expand(format, func(string) (string, bool) { return "", true }); got != format {
				t.Fatalf("expand changed %q to %q", format, got)
			}
		}
	})
}

// FuzzParseHead: HEAD contents never panic and never yield control characters.
func FuzzParseHead(f *testing.F) {
	for _, s := range []string{"ref: refs/heads/main\n", "deadbeefdeadbeef", "ref:", "", "ref: refs/tags/\x1bx"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if s := parseHead(b); strings.ContainsAny(s, "\x1b\n\r\x00") {
			t.Fatalf("parseHead(%q) = %q", b, s)
		}
	})
}
