package procfs

import (
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

const sampleMounts = `21 26 0:20 / /proc rw,relatime - proc proc rw
25 1 0:23 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate
34 30 0:31 / /sys/fs/cgroup/cpu,memory rw - cgroup cgroup rw,cpu,memory
30 26 0:20 / /srv/my\040proc rw shared:1 master:2 - proc proc rw
bad line
1 2 3 4 - x
`

// TestParseMounts: fields picked from each readable line, escapes undone,
// optional fields skipped, unreadable lines left out.
func TestParseMounts(t *testing.T) {
	got, err := ParseMounts(strings.NewReader(sampleMounts))
	if err != nil {
		t.Fatal(err)
	}
	want := []Mount{
		{Root: "/", Point: "/proc", FSType: "proc", SuperOpts: "rw"},
		{Root: "/kubepods/pod1", Point: "/sys/fs/cgroup", FSType: "cgroup2", SuperOpts: "rw,nsdelegate"},
		{Root: "/", Point: "/sys/fs/cgroup/cpu,memory", FSType: "cgroup", SuperOpts: "rw,cpu,memory"},
		{Root: "/", Point: "/srv/my proc", FSType: "proc", SuperOpts: "rw"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ParseMounts =\n%q\nwant\n%q", got, want)
	}
	if !got[2].SuperOpt("memory") || got[2].SuperOpt("mem") || got[1].SuperOpt("memory") {
		t.Error("SuperOpt matched a part of an option, or missed a whole one")
	}
}

// TestParseMountsLongLine: a line over maxMountLine is dropped whole and
// the lines after it still read; a table without a final newline too.
func TestParseMountsLongLine(t *testing.T) {
	long := "9 9 0:1 / /" + strings.Repeat("x", maxMountLine) + " rw - tmpfs t rw\n"
	text := long + "21 26 0:20 / /proc rw - proc proc rw"
	got, err := ParseMounts(iotest.HalfReader(strings.NewReader(text)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Point != "/proc" {
		t.Errorf("ParseMounts = %q, want only /proc", got)
	}
}

// TestParseMountsReadError: the reader's error comes back with what was
// read before it.
func TestParseMountsReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("21 26 0:20 / /proc rw - proc proc rw\n"), iotest.ErrReader(io.ErrUnexpectedEOF))
	got, err := ParseMounts(r)
	if err != io.ErrUnexpectedEOF || len(got) != 1 {
		t.Errorf("ParseMounts = %q, %v", got, err)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`/a\040b`: "/a b", `/plain`: "/plain", `/x\`: `/x\`, `\011`: "\t",
		`a\134b\04`: `a\b\04`, `\999`: `\999`,
	} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReadMounts reads this machine's table: on Linux it lists /proc.
func TestReadMounts(t *testing.T) {
	m, err := ReadMounts()
	if err != nil {
		t.Skipf("no mount table here: %v", err)
	}
	if !slices.ContainsFunc(m, func(m Mount) bool { return m.FSType == "proc" }) {
		t.Errorf("no procfs mount among %d", len(m))
	}
}

// FuzzParseMounts: any text parses without panicking, and every mount has
// its four fields free of the separators that delimit them.
func FuzzParseMounts(f *testing.F) {
	f.Add(sampleMounts)
	f.Add("1 2 3 4 5 - proc\n")
	f.Add(" - - - - - - - \n\n")
	f.Fuzz(func(t *testing.T, text string) {
		got, err := ParseMounts(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range got {
			if m.FSType == "" || m.SuperOpts == "" || strings.ContainsAny(m.FSType+m.SuperOpts, " \n") {
				t.Errorf("mount %q", m)
			}
		}
	})
}
