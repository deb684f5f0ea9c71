package lineedit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestHistoryKeepsMultiLineEntriesWholeAcrossRestarts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "shoal", "history")
	h, err := OpenHistory(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	fn := "fn greet(name) {\n  echo \"hi {name}\"\n}"
	for _, e := range []string{"20 + 22", fn, "   ", `"quote\" and \\ back"`} {
		if _, err := h.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("history file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("history dir mode %v, want 0700", di.Mode().Perm())
	}
	again, err := OpenHistory(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"20 + 22", fn, `"quote\" and \\ back"`}
	if got := again.Entries(); !slices.Equal(got, want) {
		t.Fatalf("after a restart: %q, want %q", got, want)
	}
	if again.Len() != 3 {
		t.Fatalf("Len %d", again.Len())
	}
	if e, err := again.GetLine(1); err != nil || e != fn {
		t.Fatalf("GetLine(1) = %q, %v", e, err)
	}
	if _, err := again.GetLine(3); err == nil {
		t.Fatal("GetLine past the end succeeded")
	}
	if _, err := again.GetLine(-1); err == nil {
		t.Fatal("GetLine(-1) succeeded")
	}
}

func TestHistoryReadsTheOldLinerFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	// liner wrote one entry per line; a JSON-looking entry is just text.
	old := "ls -la\n{\"a\": 1}\n\"just a string\"\n\nexit 7\n"
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := OpenHistory(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ls -la", `{"a": 1}`, `"just a string"`, "exit 7"}
	if got := h.Entries(); !slices.Equal(got, want) {
		t.Fatalf("old format read as %q, want %q", got, want)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), historyHeader+"\n") {
		t.Fatalf("the old file was not rewritten in the new format: %q", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("rewritten mode %v, want 0600", fi.Mode().Perm())
	}
	again, _ := OpenHistory(path, 0)
	if got := again.Entries(); !slices.Equal(got, want) {
		t.Fatalf("after the rewrite: %q, want %q", got, want)
	}
}

func TestHistoryIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	h, _ := OpenHistory(path, 3)
	for _, e := range []string{"a", "b", "c", "d", "e"} {
		_, _ = h.Write(e)
	}
	if got := h.Entries(); !slices.Equal(got, []string{"c", "d", "e"}) {
		t.Fatalf("in memory: %q", got)
	}
	// The file holds all five appended; reopening keeps the newest three
	// and compacts the file.
	again, _ := OpenHistory(path, 3)
	if got := again.Entries(); !slices.Equal(got, []string{"c", "d", "e"}) {
		t.Fatalf("reopened: %q", got)
	}
	data, _ := os.ReadFile(path)
	if strings.Count(string(data), "\n") != 4 {
		t.Fatalf("file not compacted: %q", data)
	}
	long := strings.Repeat("x", MaxEntryBytes+1)
	_, _ = again.Write(long)
	if again.Len() != 3 || again.Entries()[2] != "e" {
		t.Fatal("an entry over MaxEntryBytes was kept")
	}
}

func TestHistoryReadsOnlyTheTailOfAHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	var b strings.Builder
	b.WriteString(historyHeader + "\n")
	line := `"` + strings.Repeat("y", 1000) + `"` + "\n"
	for b.Len() < MaxHistoryFileBytes+4096 {
		b.WriteString(line)
	}
	b.WriteString(`"newest"` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := OpenHistory(path, MaxHistorySize)
	if err != nil {
		t.Fatal(err)
	}
	es := h.Entries()
	if len(es) == 0 || es[len(es)-1] != "newest" || len(es) > MaxHistoryFileBytes/1000 {
		t.Fatalf("tail read gave %d entries, last %q", len(es), es[len(es)-1])
	}
}

func TestHistoryInMemoryAndUnreadable(t *testing.T) {
	h, err := OpenHistory("", 2)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = h.Write("a")
	if h.Len() != 1 {
		t.Fatal("in-memory history lost an entry")
	}
	dir := t.TempDir() // a directory is not a history file
	h, err = OpenHistory(dir, 0)
	if err == nil {
		t.Fatal("a directory opened as a history file")
	}
	if _, err := h.Write("kept in memory"); err != nil || h.Len() != 1 {
		t.Fatalf("after a bad file, entries are not kept in memory: %v", err)
	}
}

func TestHistoryLooseModesMadePrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	if err := os.WriteFile(path, []byte(historyHeader+"\n\"a\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenHistory(path, 0); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
}

func FuzzDecodeHistory(f *testing.F) {
	f.Add([]byte(historyHeader + "\n\"a\\nb\"\n\"c\"\n"))
	f.Add([]byte("ls\n\n{\n"))
	f.Add([]byte(historyHeader + "\nnot json\n[1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, _ := DecodeHistory(data)
		var b strings.Builder
		b.WriteString(historyHeader + "\n")
		for _, e := range entries {
			if !keepable(e) {
				t.Fatalf("decoded an entry it should skip: %q", e)
			}
			b.Write(encodeEntry(e))
		}
		// What is decoded encodes and decodes to itself.
		again, current := DecodeHistory([]byte(b.String()))
		if !current || !slices.Equal(again, entries) {
			t.Fatalf("round trip: %q -> %q", entries, again)
		}
	})
}

func TestHistoryDedup(t *testing.T) {
	h, _ := OpenHistory("", 0)
	h.SetDedup(true)
	for _, e := range []string{"ls", "ls", "pwd", "ls"} {
		_, _ = h.Write(e)
	}
	if got := h.Entries(); !slices.Equal(got, []string{"ls", "pwd", "ls"}) {
		t.Fatalf("entries %q", got)
	}
}

func TestHistoryIgnore(t *testing.T) {
	h, _ := OpenHistory("", 0)
	if err := h.SetIgnore(true, []string{"exit*", "secret ?x", "*token*"}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{" hidden", "exit", "exit 7", "secret ax", "let token = 1", "kept", "secret abx", "ls /tmp"} {
		_, _ = h.Write(e)
	}
	if got := h.Entries(); !slices.Equal(got, []string{"kept", "secret abx", "ls /tmp"}) {
		t.Fatalf("entries %q", got)
	}
	if err := h.SetIgnore(false, make([]string, maxIgnorePatterns+1)); err == nil {
		t.Fatal("too many patterns accepted")
	}
	if err := h.SetIgnore(false, []string{strings.Repeat("*", maxPatternBytes+1)}); err == nil {
		t.Fatal("a long pattern accepted")
	}
	for _, tc := range []struct {
		p, s string
		want bool
	}{{"", "", true}, {"*", "", true}, {"a*b*c", "aXbYc", true}, {"a*b*c", "aXbY", false}, {"?", "", false}, {"**a", "ba", true}, {"cd *", "cd /tmp/x", true}} {
		if got := wildcard(tc.p, tc.s); got != tc.want {
			t.Errorf("wildcard(%q, %q) = %v", tc.p, tc.s, got)
		}
	}
}
