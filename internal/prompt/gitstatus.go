package prompt

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/userconfig"
)

// MaxGitStatusLines bounds the lines of `git status --porcelain=v2`
// ParseGitStatus reads; past it the marks are what was seen (each mark is
// a yes or no, so a huge work tree needs only its first lines).
const MaxGitStatusLines = 4096

// GitStatus is what the git_status module shows of a repository.
type GitStatus struct {
	Ahead, Behind                           int
	Staged, Unstaged, Untracked, Conflicted bool
}

// ParseGitStatus reads the output of `git status --porcelain=v2
// --branch`: the `# branch.ab +A -B` header and one line per changed,
// unmerged (`u`) or untracked (`?`) path. Unknown lines are skipped.
func ParseGitStatus(out []byte) GitStatus {
	var g GitStatus
	for n := 0; len(out) > 0 && n < MaxGitStatusLines; n++ {
		line := out
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			line, out = out[:i], out[i+1:]
		} else {
			out = nil
		}
		switch {
		case bytes.HasPrefix(line, []byte("# branch.ab ")):
			for _, f := range strings.Fields(string(line[len("# branch.ab "):])) {
				n, err := strconv.Atoi(f[1:])
				if err != nil || n < 0 {
					continue
				}
				if f[0] == '+' {
					g.Ahead = n
				} else if f[0] == '-' {
					g.Behind = n
				}
			}
		case bytes.HasPrefix(line, []byte("1 ")), bytes.HasPrefix(line, []byte("2 ")):
			if len(line) >= 4 {
				g.Staged = g.Staged || line[2] != '.'
				g.Unstaged = g.Unstaged || line[3] != '.'
			}
		case bytes.HasPrefix(line, []byte("u ")):
			g.Conflicted = true
		case bytes.HasPrefix(line, []byte("? ")):
			g.Untracked = true
		}
	}
	return g
}

// Marks are the module's file marks (conflicted, staged, unstaged,
// untracked, in that order) and its ahead/behind mark with counts.
func (g *GitStatus) Marks(m userconfig.GitStatusModule) (marks, aheadBehind string) {
	var b strings.Builder
	for _, x := range []struct {
		on  bool
		sym string
	}{{g.Conflicted, m.Conflicted}, {g.Staged, m.Staged}, {g.Unstaged, m.Unstaged}, {g.Untracked, m.Untracked}} {
		if x.on {
			b.WriteString(x.sym)
		}
	}
	switch {
	case g.Ahead > 0 && g.Behind > 0:
		aheadBehind = m.Diverged + m.Ahead + strconv.Itoa(g.Ahead) + m.Behind + strconv.Itoa(g.Behind)
	case g.Ahead > 0:
		aheadBehind = m.Ahead + strconv.Itoa(g.Ahead)
	case g.Behind > 0:
		aheadBehind = m.Behind + strconv.Itoa(g.Behind)
	}
	return b.String(), aheadBehind
}
