package adapters

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// statusBranch is what the `# branch.*` headers of `git status
// --porcelain=v2 --branch` say: the commit ("(initial)" before the first
// one), the branch ("(detached)" when HEAD is not on one), its upstream
// and how far ahead and behind it is (absent when the upstream is gone).
type statusBranch struct {
	seen           bool
	oid, head      string
	upstream       string
	ahead, behind  int
	hasAheadBehind bool
}

// branchHeader reads one `# branch.` header line into sb; false when the
// line is no branch header this parser knows (other `# ` headers, such as
// `# stash`, are skipped by the caller).
func (sb *statusBranch) header(l string) error {
	key, val, _ := strings.Cut(strings.TrimPrefix(l, "# "), " ")
	switch key {
	case "branch.oid":
		sb.oid = val
	case "branch.head":
		sb.head = val
	case "branch.upstream":
		sb.upstream = val
	case "branch.ab":
		a, b, ok := strings.Cut(val, " ")
		ahead, err1 := strconv.Atoi(strings.TrimPrefix(a, "+"))
		behind, err2 := strconv.Atoi(strings.TrimPrefix(b, "-"))
		if !ok || err1 != nil || err2 != nil || !strings.HasPrefix(a, "+") || !strings.HasPrefix(b, "-") {
			return fmt.Errorf("malformed branch.ab header %q", l)
		}
		sb.ahead, sb.behind, sb.hasAheadBehind = ahead, behind, true
	default:
		return nil
	}
	sb.seen = true
	return nil
}

// record is the branch headers as a value: {branch, commit, upstream,
// ahead, behind}; null where git has nothing to say (a detached HEAD has
// no branch, an unborn branch no commit, a branch with no upstream no
// counts).
func (sb *statusBranch) record(changes value.Value) *value.Record {
	str := func(s string) value.Value {
		if s == "" {
			return value.Nil
		}
		return value.Str(s)
	}
	branch, commit := str(sb.head), str(sb.oid)
	if sb.head == "(detached)" {
		branch = value.Nil
	}
	if sb.oid == "(initial)" {
		commit = value.Nil
	}
	ahead, behind := value.Value(value.Nil), value.Value(value.Nil)
	if sb.hasAheadBehind {
		ahead, behind = value.Int(sb.ahead), value.Int(sb.behind)
	}
	return value.NewRecord([]string{"branch", "commit", "upstream", "ahead", "behind", "changes"},
		[]value.Value{branch, commit, str(sb.upstream), ahead, behind, changes})
}

// headline is the branch line a git user reads first:
// "On branch main · origin/main · ahead 1, behind 2".
func (sb *statusBranch) headline() string {
	var b strings.Builder
	switch {
	case sb.head == "(detached)":
		b.WriteString("HEAD detached at ")
		b.WriteString(shortOid(sb.oid))
	default:
		b.WriteString("On branch ")
		b.WriteString(sb.head)
	}
	if sb.oid == "(initial)" {
		b.WriteString(" · no commits yet")
	}
	if sb.upstream != "" {
		b.WriteString(" · ")
		b.WriteString(sb.upstream)
		switch {
		case !sb.hasAheadBehind:
			b.WriteString(" (gone)")
		case sb.ahead == 0 && sb.behind == 0:
			b.WriteString(" · up to date")
		default:
			var parts []string
			if sb.ahead > 0 {
				parts = append(parts, fmt.Sprintf("ahead %d", sb.ahead))
			}
			if sb.behind > 0 {
				parts = append(parts, fmt.Sprintf("behind %d", sb.behind))
			}
			b.WriteString(" · ")
			b.WriteString(strings.Join(parts, ", "))
		}
	}
	return b.String()
}

func shortOid(oid string) string {
	if len(oid) > 7 {
		return oid[:7]
	}
	return oid
}

// ParseCall is ParseOutput for one bound call: the porcelain-v2 parser
// gives the record {branch, commit, upstream, ahead, behind, changes}
// when the call binds `branch` (`git status -b`), else the table of
// changes.
func ParseCall(spec *Spec, args map[string]Arg, stdout []byte) (value.Value, bool) {
	if spec.Parse != "porcelain-v2" {
		return ParseOutput(spec, stdout)
	}
	t, sb, err := parsePorcelain(stdout)
	if err != nil {
		return nil, false
	}
	if a, ok := args["branch"]; ok && a.Value == value.Bool(true) && sb.seen {
		return sb.record(t), true
	}
	return t, true
}

// Shown is how a parsed value is shown in statement position, as lines
// of text before it and the value to show after them (nil: nothing). A
// git status shows its branch line, then its changes or, when there are
// none, git's "nothing to commit, working tree clean"; every other value
// is shown as it is.
func Shown(spec *Spec, stdout []byte, v value.Value) (lines []string, show value.Value) {
	if spec.Parse != "porcelain-v2" {
		return nil, v
	}
	t, sb, err := parsePorcelain(stdout)
	if err != nil || !sb.seen {
		return nil, v
	}
	lines = []string{sb.headline()}
	if t.N == 0 {
		return append(lines, "nothing to commit, working tree clean"), nil
	}
	return lines, t
}
