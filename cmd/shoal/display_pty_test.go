package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/term"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/repl"
)

// TestDisplayOnATerminal runs the built shoal on a 30-line pseudo
// terminal in a directory of 150 files, as a person would: `ls` shows its
// header, the rows that fit in natural order with times to the second, and
// a count line; `sleep 20s &` then `jobs` lists one job.
func TestDisplayOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	for i := range 150 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file_%d", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home, "TERM=xterm", "PAGER=",
		"SHOAL_PROMPT_LEFT=shoal> ")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 30, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, tty) }()
	send := func(s string) {
		t.Helper()
		if _, err := tty.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}

	at := out.waitFor(t, 0, "shoal> ")
	send("ls\r")
	// 30 lines: header, rule, 23 rows, the count line, the prompt and the
	// rows the editor keeps free below it (lineedit.ReserveRows).
	end := out.waitFor(t, at, "… 127 more rows (150 total)")
	// The editor's mode escapes go before the value; they are not lines.
	shown := regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]").ReplaceAllString(strings.ReplaceAll(out.String()[at:end], "\r", ""), "")
	lines := strings.Split(shown, "\n")
	var header int = -1
	for i, l := range lines {
		if strings.HasPrefix(l, "path") {
			header = i
			break
		}
	}
	if header < 0 {
		t.Fatalf("no header before the count line:\n%s", shown)
	}
	if f := strings.Fields(lines[header]); strings.Join(f, " ") != "path type size modified" {
		t.Errorf("header %q: want path type size modified", lines[header])
	}
	rows := lines[header+2 : len(lines)-1]
	if len(rows) != 23 {
		t.Errorf("%d rows shown, want 23:\n%s", len(rows), shown)
	}
	for i, r := range rows {
		if f := strings.Fields(r); len(f) == 0 || f[0] != fmt.Sprintf("file_%d", i) {
			t.Fatalf("row %d is %q, want file_%d first (natural order)", i, r, i)
		}
	}
	if regexp.MustCompile(`:\d\d\.\d+Z`).MatchString(shown) {
		t.Errorf("times shown with a fraction of a second:\n%s", shown)
	}
	at = out.waitFor(t, end, "shoal> ")

	send("sleep 20s &\r")
	at = out.waitFor(t, at, "[1] sleep 20s")
	at = out.waitForPrompt(t, at)
	send("jobs\r")
	end = out.waitFor(t, out.waitFor(t, at, "running"), "shoal> ")
	jobs := strings.ReplaceAll(out.String()[at:end], "\r", "")
	if n := strings.Count(jobs, "sleep 20s"); n != 1 || !strings.Contains(jobs, "running") {
		t.Errorf("jobs shows %d sleep 20s rows, want one running:\n%s", n, jobs)
	}
	send("exit 0\r")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("shoal did not exit")
	}
}

// TestPagerWords: the configured pager, else $PAGER, else less -FRX.
func TestPagerWords(t *testing.T) {
	cases := []struct {
		configured string
		env        []string
		want       string
	}{
		{"", nil, "less -FRX"},
		{"", []string{"PAGER=  "}, "less -FRX"},
		{"", []string{"PAGERX=more", "XPAGER=more"}, "less -FRX"},
		{"", []string{"HOME=/h", "PAGER=more"}, "more"},
		{"", []string{"PAGER=more", "PAGER=most"}, "most"},
		{"bat --plain", []string{"PAGER=more"}, "bat --plain"},
		{"  ", []string{"PAGER=most -s"}, "most -s"},
	}
	for _, c := range cases {
		if got := strings.Join(pagerWords(c.configured, c.env), " "); got != c.want {
			t.Errorf("pagerWords(%q, %q) = %q, want %q", c.configured, c.env, got, c.want)
		}
	}
}

// TestPageOnATerminal runs TestPageHelper in a session of its own whose
// controlling terminal is a pseudo terminal, as the REPL runs: page runs
// the pager in the terminal's foreground with the text in a private file
// it is given, which is gone afterwards; the real `less -FRX` shows the
// first screen of a tall text and ends on q; a pager that is missing or
// fails is an error (the REPL then prints the text).
func TestPageOnATerminal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pseudo-terminals are exercised on Linux")
	}
	if os.Getenv("SHOAL_PAGE_HELPER") != "" {
		t.Skip("inside the helper")
	}
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	if err := pty.Setsize(master, &pty.Winsize{Rows: 24, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	out := &ptyOutput{}
	go func() { _, _ = io.Copy(out, master) }()
	report := filepath.Join(t.TempDir(), "report")
	cmd := exec.Command(os.Args[0], "-test.run=^TestPageHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "SHOAL_PAGE_HELPER="+report)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The real less, when there is one: it shows the first screen of a
	// 100-line text and waits; q ends it.
	if _, err := exec.LookPath("less"); err == nil {
		at := out.waitFor(t, 0, "row two")
		out.waitFor(t, at, "less-row-22")
		if _, err := master.Write([]byte("q")); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if strings.Contains(out.String()[at:], "less-row-99") {
				t.Errorf("less showed the whole text on a 24-line terminal, not its first screen")
			}
		}()
	}
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("helper hung")
	}
	data, rerr := os.ReadFile(report)
	if rerr != nil || strings.TrimSpace(string(data)) != "ok" {
		t.Fatalf("helper (%v): %s (%v)\nterminal:\n%s", err, data, rerr, out.String())
	}
	out.waitFor(t, 0, "row two")
}

// TestPageHelper is the helper's body (it does nothing in a normal run):
// it writes "ok" or what went wrong to the report file.
func TestPageHelper(t *testing.T) {
	report := os.Getenv("SHOAL_PAGE_HELPER")
	if report == "" {
		t.Skip("run by TestPageOnATerminal")
	}
	msg := "ok"
	if err := pageChecks(filepath.Dir(report)); err != nil {
		msg = err.Error()
	}
	if err := os.WriteFile(report, []byte(msg+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func pageChecks(dir string) error {
	fd := int(os.Stdin.Fd())
	cooked, err := term.GetState(fd)
	if err != nil {
		return err
	}
	h := &terminalHost{Host: host.NewOS(host.AllowAll), fd: fd, cooked: cooked}
	ctx := context.Background()
	marker := filepath.Join(dir, "seen")
	// The "pager" (sh -c SCRIPT MARKER FILE) shows the file and notes its
	// mode, its name (what is paged, so a pager's status line names it)
	// and its directory (private, holding the file).
	script := `cat "$1"; stat -c %a "$1" > "$0"; echo "$1" >> "$0"; pwd >> "$0"; stat -c %a . >> "$0"`
	env := os.Environ()
	if err := h.page(ctx, []string{"sh", "-c", script, marker}, "ls -la /etc", "row one\nrow two\n", env); err != nil {
		return fmt.Errorf("page: %w", err)
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		return err
	}
	f := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(f) != 4 || f[0] != "600" || f[1] != "ls -la \u2215etc" || f[3] != "700" {
		return fmt.Errorf("the pager saw %q, want mode 600, the file named ls -la \u2215etc in a private directory", data)
	}
	if _, err := os.Stat(f[2]); !os.IsNotExist(err) {
		return fmt.Errorf("the text's directory %s was left behind (%v)", f[2], err)
	}
	if _, err := exec.LookPath("less"); err == nil {
		var text strings.Builder
		for i := range 100 {
			fmt.Fprintf(&text, "less-row-%02d\n", i)
		}
		if err := h.page(ctx, strings.Fields(repl.DefaultPager), "rows", text.String(), append(env, "LESSHISTFILE=-")); err != nil {
			return fmt.Errorf("less: %w", err)
		}
	}
	if err := h.page(ctx, []string{"shoal-no-such-pager"}, "x", "x\n", env); err == nil {
		return fmt.Errorf("a missing pager was not an error")
	}
	if err := h.page(ctx, []string{"false"}, "x", "x\n", env); err == nil {
		return fmt.Errorf("a failing pager was not an error")
	}
	return nil
}
