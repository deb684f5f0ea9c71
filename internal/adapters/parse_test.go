package adapters

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

func spec(parse, typ string) *Spec { return &Spec{Parse: parse, OutType: typ} }

func TestParseOutput(t *testing.T) {
	cases := []struct {
		name   string
		spec   *Spec
		stdout string
		want   string // value.Inline of the result; "" when it must stay raw
	}{
		{"json record", spec("json", ""), `{"a": 1, "b": [true]}`, `{a: 1, b: [true]}`},
		{"json table", spec("json", ""), `[{"n": "x"}, {"n": "y"}]`, `[{n: "x"}, {n: "y"}]`},
		{"json trailing", spec("json", ""), `{"a": 1} {`, ""},
		{"ndjson", spec("ndjson", ""), "{\"t\":\"a\"}\n\n{\"t\":\"b\"}\n", `[{t: "a"}, {t: "b"}]`},
		{"ndjson mixed", spec("ndjson", ""), "1\n{\"t\":\"b\"}\n", `[1, {t: "b"}]`},
		{"ndjson bad", spec("ndjson", ""), "{\"t\":\n", ""},
		{"csv", spec("csv", "table<{n: int}>"), "n,s\n1,\"a,b\"\n2,\"say \"\"hi\"\"\"\n", `[{n: 1, s: "a,b"}, {n: 2, s: "say \"hi\""}]`},
		{"csv ragged", spec("csv", ""), "a,b\n1\n", ""},
		{"csv bad cell", spec("csv", "table<{n: int}>"), "n\nx\n", ""},
		{"tsv", spec("tsv", ""), "a\tb\n1\t2\n", `[{a: "1", b: "2"}]`},
		{"tsv headerless", spec("tsv-headerless", "table<{size: size_kb, path: path}>"), "4\t./a\n8\t.\n", `[{size: 4.1kb, path: ./a}, {size: 8.19kb, path: .}]`},
		{"tsv headerless short", spec("tsv-headerless", "table<{size: size_kb, path: path}>"), "4\n", ""},
		{"cols", spec("cols", "table<{pid: int, cpu: float, command: str}>"), "PID %CPU CMD\n  1  0.5 /sbin/init splash\n 42 12.0 sleep 5\n", `[{pid: 1, cpu: 0.5, command: "/sbin/init splash"}, {pid: 42, cpu: 12, command: "sleep 5"}]`},
		{"cols short row", spec("cols", "table<{pid: int, cpu: float, command: str}>"), "PID %CPU CMD\n 1\n", ""},
		{"cols2", spec("cols2", "table<{r: int, b: int}>"), "procs\n r b\n 1 0\n", `[{r: 1, b: 0}]`},
		{"df", spec("cols", "table<{filesystem: str, size: size_kb, used: size_kb, avail: size_kb, use_pct: percent, mounted: path}>"),
			"Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/sda1 1000 250 750 25% /mnt/my disk\nproc 0 0 0 - /proc\n",
			`[{filesystem: "/dev/sda1", size: 1.02mb, used: 256kb, avail: 768kb, use_pct: 25, mounted: "/mnt/my disk"}, {filesystem: "proc", size: 0b, used: 0b, avail: 0b, use_pct: null, mounted: /proc}]`},
		{"z-records", spec("z-records", "table<{hash: str, subject: str}>"), "abc\x00first\x00\ndef\x00second\x00", `[{hash: "abc", subject: "first"}, {hash: "def", subject: "second"}]`},
		{"z-records partial", spec("z-records", "table<{hash: str, subject: str}>"), "abc\x00first\x00def", ""},
		{"porcelain", spec("porcelain-v2", ""),
			"# branch.oid abc\n1 .M N... 100644 100644 100644 aaa bbb src/main.go\n1 A. N... 000000 100644 100644 000 ccc new file.txt\n2 R. N... 100644 100644 100644 ddd eee R100 b.txt\ta.txt\n? scratch.txt\n! build/\n",
			`[{status: ".M", state: "modified", path: src/main.go, orig: null}, {status: "A.", state: "added", path: "new file.txt", orig: null}, {status: "R.", state: "renamed", path: b.txt, orig: a.txt}, {status: "?", state: "untracked", path: scratch.txt, orig: null}, {status: "!", state: "ignored", path: build/, orig: null}]`},
		{"porcelain unmerged", spec("porcelain-v2", ""), "u UU N... 100644 100644 100644 100644 a b c conflict file.txt\n", `[{status: "UU", state: "unmerged", path: "conflict file.txt", orig: null}]`},
		{"porcelain unmerged short", spec("porcelain-v2", ""), "u UU N... 1 2 3 4 a b c\n", ""},
		{"porcelain bad ab", spec("porcelain-v2", ""), "# branch.ab 1 2\n", ""},
		{"porcelain malformed", spec("porcelain-v2", ""), "1 .M short\n", ""},
		{"lines", spec("lines", ""), "a\nb\n", `["a", "b"]`},
		{"json stream", spec("json", ""), "{\n  \"a\": 1\n}\n{\n  \"a\": 2\n}\n", `[{a: 1}, {a: 2}]`},
		{"json stream mixed", spec("json", ""), "1 \"x\"", `[1, "x"]`},
		{"json stream broken", spec("json", ""), "{\"a\": 1}\n{\"a\": ", ""},
		{"lines empty", spec("lines", ""), "", `[]`},
		{"lines paths", spec("lines", "list<path>"), "a\n", `[a]`},
		{"lines not utf8", spec("lines", ""), "\xff\n", ""},
		{"kv", spec("kv", ""), "HOME=/root\nA=b=c\nkey: value\n", `{HOME: "/root", A: "b=c", key: "value"}`},
		{"kv bad", spec("kv", ""), "nothing here\n", ""},
		{"none", spec("none", ""), "x", ""},
	}
	for _, tc := range cases {
		v, ok := ParseOutput(tc.spec, []byte(tc.stdout))
		if tc.want == "" {
			if ok {
				t.Errorf("%s: parsed to %s, want raw", tc.name, value.Inline(v))
			}
			continue
		}
		if !ok {
			t.Errorf("%s: stayed raw, want %s", tc.name, tc.want)
			continue
		}
		if got := value.Inline(v); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestPorcelainEmptyIsEmptyTable(t *testing.T) {
	v, ok := ParseOutput(spec("porcelain-v2", ""), nil)
	tb, isTable := v.(*value.Table)
	if !ok || !isTable || tb.N != 0 || strings.Join(tb.Cols, ",") != "status,state,path,orig" {
		t.Fatalf("empty status = %#v, %v", v, ok)
	}
}

func TestHintFields(t *testing.T) {
	fs, err := HintFields(`table<{"CONTAINER ID": str, IMAGE: str, addr: list<record>, n: int?}>`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Name+"="+f.Type)
	}
	if g := strings.Join(got, " "); g != "CONTAINER ID=str IMAGE=str addr=list<record> n=int?" {
		t.Errorf("fields %q", g)
	}
	for _, bad := range []string{"table", "{}", "{a}", "{: int}"} {
		if _, err := HintFields(bad); err == nil {
			t.Errorf("%q gave fields", bad)
		}
	}
}
