package prompt

import (
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/userconfig"
)

func TestParseGitStatus(t *testing.T) {
	out := "# branch.oid 0123\n# branch.head main\n# branch.upstream origin/main\n# branch.ab +2 -3\n" +
		"1 M. N... 100644 100644 100644 a b staged.go\n1 .M N... 100644 100644 100644 a b edited.go\n" +
		"u UU N... 1 2 3 4 h1 h2 h3 both.go\n? new.txt\n"
	g := ParseGitStatus([]byte(out))
	want := GitStatus{Ahead: 2, Behind: 3, Staged: true, Unstaged: true, Untracked: true, Conflicted: true}
	if g != want {
		t.Errorf("got %+v, want %+v", g, want)
	}
	marks, ab := g.Marks(userconfig.Default().Prompt.Module.GitStatus)
	if marks != "=+!?" || ab != "⇕⇡2⇣3" {
		t.Errorf("marks %q %q", marks, ab)
	}
	if g := ParseGitStatus([]byte("# branch.ab +x -\n1 ..\n")); g != (GitStatus{}) {
		t.Errorf("malformed lines: %+v", g)
	}
	big := strings.Repeat("? f\n", MaxGitStatusLines+10)
	if g := ParseGitStatus([]byte(big)); !g.Untracked {
		t.Errorf("a long status: %+v", g)
	}
}

func TestModulesRender(t *testing.T) {
	p := userconfig.Default().Prompt
	p.Format.Left = "$git_status$cmd_duration$principal$leash$reef$character"
	p.Format.Right = "<$exit_status>"
	p.Transient.Enabled = true
	s := State{Git: &GitStatus{Ahead: 1}, Duration: 2500 * time.Millisecond, Principal: "me", Leash: "allow-all", Reef: "go@1.22"}
	if got, want := Render(&p, s), "[⇡1] took 2.5s me [allow-all] (go@1.22) > "; got != want {
		t.Errorf("left %q, want %q", got, want)
	}
	s.Git, s.Duration, s.Agent, s.Status = &GitStatus{}, time.Second, true, 3
	if got, want := Render(&p, s), "agent:me [allow-all] (go@1.22) > "; got != want {
		t.Errorf("left %q, want %q (a clean tree, a quick line, an agent)", got, want)
	}
	if got := Right(&p, s); got != "<[3] >" {
		t.Errorf("right %q", got)
	}
	if got := Transient(&p, s); got != "> " {
		t.Errorf("transient %q", got)
	}
	p.Transient.Enabled = false
	if got := Transient(&p, s); got != "" {
		t.Errorf("transient off: %q", got)
	}
	for d, want := range map[time.Duration]string{850 * time.Millisecond: "850ms", 2 * time.Second: "2s",
		65 * time.Second: "1m05s", 123 * time.Minute: "2h03m"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	if u := Unknown("$git_status$reef$nope"); len(u) != 1 || u[0] != "nope" {
		t.Errorf("Unknown: %q", u)
	}
}

// FuzzParseGitStatus: any output (file names are the repository's) is
// read without a panic, and the marks it yields never hold a control
// character the terminal would act on.
func FuzzParseGitStatus(f *testing.F) {
	f.Add([]byte("# branch.ab +1 -2\n1 M. x\n? y\nu UU z\n"))
	f.Add([]byte("# branch.ab +\n# branch.ab -99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		g := ParseGitStatus(out)
		marks, ab := g.Marks(userconfig.Default().Prompt.Module.GitStatus)
		if strings.ContainsAny(marks+ab, "\x1b\r\n") || g.Ahead < 0 || g.Behind < 0 {
			t.Fatalf("marks %q %q from %q", marks, ab, out)
		}
	})
}
