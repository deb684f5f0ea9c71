package kernel

import (
	"flag"
	"io"
	"os"
	"strings"
	"testing"
)

// Every tunable bound has a flag, the flag sets the field, and kernel.info
// reports the value in force under the flag's name.
func TestLimitFlagsSetAndReport(t *testing.T) {
	l := DefaultLimits()
	def := l.report()
	if len(def) != len(limitFlags) {
		t.Fatalf("report has %d entries for %d flags (a duplicate flag name?)", len(def), len(limitFlags))
	}
	fs := flag.NewFlagSet("k", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	RegisterLimitFlags(fs, &l)
	var args []string
	want := map[string]int64{}
	for _, f := range limitFlags {
		switch {
		case f.size != nil:
			args = append(args, "--"+f.name, "3MiB")
			want[f.name] = 3 << 20
		case f.count != nil:
			args = append(args, "--"+f.name, "7")
			want[f.name] = 7
		case f.duration != nil:
			args = append(args, "--"+f.name, "1500ms")
			want[f.name] = 1500
		default:
			t.Fatalf("flag %s sets nothing", f.name)
		}
		if f.usage == "" {
			t.Errorf("flag %s has no usage text", f.name)
		}
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	got := l.report()
	for name, w := range want {
		if got[name] != w {
			t.Errorf("--%s: reported %d, want %d (default %d)", name, got[name], w, def[name])
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"4096": 4096, "64KiB": 64 << 10, "2GiB": 2 << 30, "512M": 512 << 20, " 1 K ": 1 << 10, "0": 0} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "1.5GiB", "9999999999GiB", "1XB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

// The limits table in docs/kernel.md names every tunable bound's flag.
func TestLimitsTableNamesEveryFlag(t *testing.T) {
	b, err := os.ReadFile("../../docs/kernel.md")
	if err != nil {
		t.Skip("docs not beside the package:", err)
	}
	doc := string(b)
	i := strings.Index(doc, "\n## Limits\n")
	if i < 0 {
		t.Fatal("docs/kernel.md has no Limits section")
	}
	table := doc[i:]
	for _, f := range limitFlags {
		if !strings.Contains(table, "`--"+f.name+"`") && !strings.Contains(table, "`--"+f.name+" ") {
			t.Errorf("the limits table does not name --%s", f.name)
		}
	}
}
