package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/pty"
)

// rowWith is the index of the last screen row containing text, -1 when
// none does.
func rowWith(s pty.Snapshot, text string) int {
	for i := len(s.Screen) - 1; i >= 0; i-- {
		if strings.Contains(s.Screen[i], text) {
			return i
		}
	}
	return -1
}

// rowIs is the index of the last screen row that is text (trailing
// blanks aside), -1 when none is.
func rowIs(s pty.Snapshot, text string) int {
	for i := len(s.Screen) - 1; i >= 0; i-- {
		if strings.TrimRight(s.Screen[i], " ") == text {
			return i
		}
	}
	return -1
}

// fgAt is the foreground colour of the cell at row y, column x as the
// screen reports it ("" for the default).
func fgAt(s pty.Snapshot, y, x int) string {
	if y < 0 || y >= len(s.Styles) {
		return ""
	}
	for _, sp := range s.Styles[y] {
		if x >= sp.Col && x < sp.Col+sp.Len && sp.Fg != nil {
			return fmt.Sprint(sp.Fg)
		}
	}
	return ""
}

// TestREPLJobsAndEdges is issue 23's "jobs behave like a shell's" and
// "the REPL's last rough edges", checked on the screen of a terminal
// running the built shoal: a job's output and its end are shown at the
// next prompt and it then leaves `jobs`; `jobs` has one state column and
// the command as typed; cd prints nothing; an unknown command is
// coloured as an error while typed; Ctrl-C in a completion menu abandons
// the line; an interrupt shows one ^C; continuation lines start with the
// continuation prompt.
func TestREPLJobsAndEdges(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	u := startUserTerminal(t, dir)
	prompt := func(s pty.Snapshot) bool { return strings.HasSuffix(strings.TrimRight(cursorRow(s), " "), ">") }
	if _, ok := u.waitFor("the first prompt", prompt); !ok {
		t.FailNow()
	}
	clear := func() {
		u.send("\x0c")
		u.waitFor("a cleared screen", func(s pty.Snapshot) bool { return s.Cursor.Row == 0 && prompt(s) })
	}

	// H7: the job's output, then its end, at a prompt after it ended.
	u.send("{ sleep 1; echo job-out-x } &\r")
	u.waitFor("the job's task", func(s pty.Snapshot) bool { return rowIs(s, "[1] sleep 1; echo job-out-x") >= 0 })
	var snap pty.Snapshot
	for tries := 0; ; tries++ {
		snap = u.screen()
		if rowWith(snap, "[1] done  sleep 1; echo job-out-x") >= 0 {
			break
		}
		if tries == 40 {
			t.Fatalf("the job's end was never reported:\n%s", shown(snap))
		}
		time.Sleep(250 * time.Millisecond)
		u.send("\r")
	}
	if out, done := rowIs(snap, "job-out-x"), rowWith(snap, "[1] done"); out < 0 || out >= done {
		t.Errorf("the job's output is not shown before its end:\n%s", shown(snap))
	}
	u.send("\r")
	u.waitFor("a prompt", prompt)
	if n := strings.Count(all(u.screen()), "[1] done"); n != 1 {
		t.Errorf("the end was reported %d times:\n%s", n, shown(u.screen()))
	}

	// 25: one state column, the command as typed, the ended job gone.
	clear()
	u.send("^sleep 20 &\r")
	u.waitFor("the second job", func(s pty.Snapshot) bool { return rowIs(s, "[2] ^sleep 20") >= 0 })
	u.send("jobs\r")
	snap, _ = u.waitFor("the jobs table", func(s pty.Snapshot) bool { return rowWith(s, "running") > rowWith(s, "> jobs") })
	head := rowWith(snap, "command")
	if head < 0 || !strings.Contains(snap.Screen[head], "state") || strings.Contains(snap.Screen[head], "suspended") ||
		strings.Contains(snap.Screen[head], "status") || strings.Contains(snap.Screen[head], "done") {
		t.Errorf("jobs header is not id, state, command:\n%s", shown(snap))
	}
	if row := snap.Screen[rowWith(snap, "^sleep 20")]; !strings.Contains(row, "running") {
		t.Errorf("the running job's row: %q", row)
	}
	if rowWith(snap, "job-out-x") >= 0 && rowWith(snap, "echo job-out-x") > rowWith(snap, "jobs") {
		t.Errorf("the reported job is still listed:\n%s", shown(snap))
	}
	u.send("kill %2\r")
	for tries := 0; rowWith(u.screen(), "[2] cancelled  ^sleep 20") < 0; tries++ {
		if tries == 40 {
			t.Fatalf("the killed job's end was never reported:\n%s", shown(u.screen()))
		}
		time.Sleep(250 * time.Millisecond)
		u.send("\r")
	}

	// H14: cd prints nothing but the new prompt.
	clear()
	u.send("cd sub\r")
	snap, _ = u.waitFor("the prompt in sub", func(s pty.Snapshot) bool { return prompt(s) && s.Cursor.Row >= 1 })
	for _, row := range snap.Screen {
		if strings.TrimSpace(row) == filepath.Join(dir, "sub") {
			t.Errorf("cd printed its directory:\n%s", shown(snap))
		}
	}
	if snap.Cursor.Row != rowWith(snap, "cd sub")+1 {
		t.Errorf("cd printed something before the prompt:\n%s", shown(snap))
	}

	// H15: an unknown command is coloured as an error while typed, a
	// known one is not.
	clear()
	u.send("frobnicate x")
	snap, _ = u.waitFor("the unknown command typed", func(s pty.Snapshot) bool { return strings.Contains(cursorRow(s), "frobnicate x") })
	y := snap.Cursor.Row
	if fg := fgAt(snap, y, strings.Index(snap.Screen[y], "frobnicate")); fg != "1" {
		t.Errorf("an unknown command is coloured %q, want red (1):\n%v", fg, snap.Styles[y])
	}
	u.send("\x03")
	u.send("git status")
	snap, _ = u.waitFor("a known command typed", func(s pty.Snapshot) bool { return strings.Contains(cursorRow(s), "git status") })
	y = snap.Cursor.Row
	if fg := fgAt(snap, y, strings.Index(snap.Screen[y], "git")); fg == "1" || fg == "" {
		t.Errorf("a known command is coloured %q, want its command colour", fg)
	}
	u.send("\x03")

	// 23: Ctrl-C with a candidate picked in the completion menu abandons
	// the line.
	clear()
	u.send("s\t")
	u.waitFor("the completion menu", func(s pty.Snapshot) bool { return rowWith(s, "sleep") > s.Cursor.Row })
	u.send("\t")
	time.Sleep(300 * time.Millisecond)
	u.send("\x03")
	u.send("7*6\r")
	// Both rows, not "42" alone: a screen can show "42" elsewhere first,
	// and indexing a row not found would panic the whole package's run.
	snap, _ = u.waitFor("7*6 and 42", func(s pty.Snapshot) bool { return rowWith(s, "42") >= 0 && rowWith(s, "7*6") >= 0 })
	if at := rowWith(snap, "7*6"); at < 0 {
		t.Errorf("the line 7*6 is not on the screen:\n%s", shown(snap))
	} else if row := strings.TrimRight(snap.Screen[at], " "); !strings.HasSuffix(row, "> 7*6") {
		t.Errorf("the abandoned completion was kept: %q\n%s", row, shown(snap))
	}

	// 24: an interrupt shows one ^C.
	clear()
	u.send("sleep 30s\r")
	time.Sleep(500 * time.Millisecond)
	u.send("\x03")
	snap, _ = u.waitFor("the interrupt's note", func(s pty.Snapshot) bool { return rowWith(s, "interrupted") >= 0 })
	if row := snap.Screen[rowWith(snap, "interrupted")]; !strings.Contains(row, "^C interrupted") || strings.Contains(row, "^C^C") {
		t.Errorf("interrupt row %q, want one ^C", row)
	}

	// 26: each continuation line starts with the continuation prompt,
	// lined up under the first line's text.
	clear()
	u.send("if true {\r")
	u.send("  5 * 5\r")
	snap, _ = u.waitFor("the continuation lines", func(s pty.Snapshot) bool { return rowWith(s, "5 * 5") >= 0 })
	first, second := rowWith(snap, "if true {"), rowWith(snap, "5 * 5")
	if second != first+1 || !strings.Contains(snap.Screen[second], "... ") || strings.Contains(snap.Screen[second], "│") ||
		strings.Index(snap.Screen[second], "  5 * 5") != strings.Index(snap.Screen[first], "if true {") {
		t.Errorf("continuation line %q under %q", snap.Screen[second], snap.Screen[first])
	}
	u.send("}\r")
	// The value and the last line drawn whole: a snapshot can fall while
	// the editor redraws the block (no row with "}" then).
	u.waitFor("the block's value under its last continuation line", func(s pty.Snapshot) bool {
		return rowWith(s, "25") >= 0 && rowWith(s, "}") >= 0 && strings.Contains(s.Screen[rowWith(s, "}")], "... }")
	})
}

// TestPagerNamesWhatItPages (issue 23, finding 31): with render.paging =
// "auto", a tall value goes to the pager, whose status line names the
// statement typed, not a temporary file.
func TestPagerNamesWhatItPages(t *testing.T) {
	less, err := exec.LookPath("less")
	if err != nil {
		t.Skip("less is not installed")
	}
	bin := buildShoal(t)
	home := t.TempDir()
	pathDir := t.TempDir()
	if err := os.Symlink(less, filepath.Join(pathDir, "less")); err != nil {
		t.Fatal(err)
	}
	r := startScreenREPL(t, bin, t.TempDir(), []string{
		"HOME=" + home, "PATH=" + pathDir, "LANG=C.UTF-8", "LESSHISTFILE=-",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"SHOAL_PROMPT_LEFT=shoal> ", "SHOAL_RENDER_PAGING=auto", "PAGER=less",
	})
	r.send("(1..200).collect()\r")
	snap := r.wait("the pager's status line", func(s pty.Snapshot) bool {
		return strings.Contains(s.Screen[len(s.Screen)-1], "(1..200).collect()")
	})
	if strings.Contains(strings.Join(snap.Screen, "\n"), "shoal-page") {
		t.Errorf("the pager shows a temporary file:\n%s", strings.Join(snap.Screen, "\n"))
	}
	r.send("q")
	r.waitRow("the prompt after the pager", func(row string) bool { return strings.TrimRight(row, " ") == "shoal>" })
}
