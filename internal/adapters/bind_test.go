package adapters

import (
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/value"
)

// words builds call words from a compact spelling: "--x", "--x=v",
// "-abc", "--", "?" (a value not known before running), else a string.
func words(ws ...string) []Word {
	var out []Word
	for _, w := range ws {
		switch {
		case w == "--":
			out = append(out, Word{Kind: DashDash})
		case w == "?":
			out = append(out, Word{Kind: Positional, Unknown: true})
		case strings.HasPrefix(w, "--"):
			name, v, ok := strings.Cut(w[2:], "=")
			word := Word{Kind: Long, Name: name}
			if ok {
				word.Value = value.Str(v)
			}
			out = append(out, word)
		case strings.HasPrefix(w, "-") && len(w) > 1:
			out = append(out, Word{Kind: Short, Name: w[1:]})
		case strings.HasPrefix(w, "*"):
			out = append(out, Word{Kind: Positional, Value: &value.Glob{Pattern: w}})
		default:
			out = append(out, Word{Kind: Positional, Value: value.Str(w)})
		}
	}
	return out
}

// argvText renders pieces: unknown values as ?, globs to expand as <glob>.
func argvText(ps []Piece) string {
	var out []string
	for _, p := range ps {
		s := p.Prefix
		switch {
		case p.Unknown:
			s += "?"
		case p.Expand:
			s += "<" + textOf(p.Value) + ">"
		case p.Value != nil:
			s += textOf(p.Value)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestBind(t *testing.T) {
	cat := Bundled()
	cases := []struct {
		head  string
		words []string
		argv  string // "" with err
		err   string // an arg_error; "pass:" and the reason when the call passes through
	}{
		{"cargo", []string{"metadata", "--no_deps"}, "metadata --format-version 1 --no-deps", ""},
		{"cargo", []string{"metadata", "--format-version", "1", "--no-deps"}, "metadata --format-version 1 --no-deps", ""},
		{"cargo", []string{"metadata", "--format-version", "x"}, "", "--format_version expects int"},
		{"cargo", []string{"build", "--jobs", "8"}, "build --jobs 8", ""},
		{"cargo", []string{"build", "--jobs=8", "--release"}, "build --jobs 8 --release", ""},
		{"cargo", []string{"build", "-j", "4", "-r"}, "build -j 4 -r", ""},
		{"cargo", []string{"build", "--jobs", "many"}, "", `arg_error: cargo build: --jobs expects int, got "many"`},
		{"cargo", []string{"build", "--jobs"}, "build --jobs", "pass:cargo build: --jobs needs a int? value"},
		{"cargo", []string{"build", "--frobnicate"}, "build --frobnicate", "pass:cargo build: unknown flag --frobnicate (the adapter declares --all_features"},
		{"cargo", []string{"build", "-Z", "x"}, "build -Z x", "pass:unknown flag -Z"},
		{"cargo", []string{"build", "--release", "--timings=html", "--jobs", "2"}, "build --release --timings=html --jobs 2", "pass:unknown flag --timings"},
		{"cargo", []string{"build", "--release=false"}, "build", ""},
		{"cargo", []string{"build", "--release=maybe"}, "", "--release is a flag (bool)"},
		{"cargo", []string{"build", "extra"}, "build extra", "pass:past the positional arguments"},
		{"cargo", []string{"nightly-thing", "--anything"}, "nightly-thing --anything", ""},
		{"cargo", []string{"run", "--", "--port", "8"}, "run -- --port 8", ""},
		{"git", []string{"status", "--short"}, "status --porcelain=v2 --branch", ""},
		{"git", []string{"status", "-sb"}, "status --porcelain=v2 --branch", ""},
		{"git", []string{"status", "--porcelain"}, "status --porcelain", "pass:unknown flag --porcelain"},
		{"git", []string{"status", "-uno"}, "status -uno", "pass:unknown flag -u"},
		{"git", []string{"log", "--oneline"}, "log --oneline", "pass:unknown flag --oneline"},
		{"git", []string{"log", "--max_count=3", "--graph", "--format=%h %s"}, "log --max-count=3 --graph --format=%h %s", "pass:unknown flag --graph"},
		{"git", []string{"log", "--max_count", "3", "--stat"}, "log --max-count 3 --stat", "pass:unknown flag --stat"},
		{"go", []string{"list", "--m=true", "-json=false"}, "list -m -json=false", "pass:unknown flag -j"},
		{"cargo", []string{"build", "--release=false", "--locked=true", "--timings"}, "build --locked --timings", "pass:unknown flag --timings"},
		{"git", []string{"log", "-n5", "--follow", "a.txt"}, "log -z --no-color --format=%H%x00%an%x00%aI%x00%s -n5 --follow a.txt", ""},
		{"git", []string{"log", "-5"}, "log -5", "pass:unknown flag -5"},
		{"git", []string{"add", "-p"}, "add -p", "pass:unknown flag -p"},
		{"git", []string{"branch", "-vv"}, "branch -vv", "pass:unknown flag -v"},
		{"git", []string{"stash"}, "stash", ""},
		{"git", []string{"stash", "push", "-m", "wip"}, "stash push -m wip", ""},
		{"git", []string{"stash_list", "--date=relative"}, "", "git stash_list: unknown flag --date"},
		{"git", []string{"commit", "--dry-run"}, "commit --dry-run", ""},
		{"git", []string{"-C", "sub", "status"}, "-C sub status", ""},
		{"kubectl", []string{"get", "pods", "-o", "yaml"}, "get pods -o yaml", "pass:unknown flag -o"},
		{"git", []string{"log", "-n", "3", "main"}, "log -z --no-color --format=%H%x00%an%x00%aI%x00%s -n 3 main", ""},
		{"git", []string{"log", "--max_count", "x"}, "", "git log: --max_count expects int"},
		{"git", []string{"init", "-q", "-b", "main"}, "init -q -b main", ""},
		{"git", []string{"commit", "-qm", "msg"}, "commit -q -m msg", ""},
		{"git", []string{"commit", "-mq"}, "commit -mq", ""},
		{"git", []string{"commit", "-mq", "msg"}, "commit -mq msg", "pass:past the positional"},
		{"git", []string{"stash_list"}, "stash list", ""},
		{"git", []string{"rebase", "-i", "HEAD~2"}, "rebase -i HEAD~2", ""},
		{"git", []string{"clone"}, "clone", "pass:git clone: missing <repository> (str)"},
		{"tar", []string{"-xzf", "a.tgz", "-C", "out"}, "-x -z -f a.tgz -C out", ""},
		{"du", []string{"-h", "-s", "src"}, "-k -s src", ""},
		{"rg", []string{"-i", "TODO", "*.go", "src"}, "--json -i TODO <*.go> src", ""},
		{"rg", []string{"--glob", "*.go", "--glob", "*.rs", "x"}, "--json --glob *.go --glob *.rs x", ""},
		{"curl", []string{"-H", "a: b", "--header", "c: d", "https://example.com/x"}, "-H a: b --header c: d https://example.com/x", ""},
		{"cargo", []string{"build", "--jobs", "?"}, "build --jobs ?", ""},
		{"df", []string{"?", "/tmp"}, "-kP ? /tmp", ""},
	}
	for _, tc := range cases {
		cmd, ok := cat.Lookup(tc.head)
		if !ok {
			t.Fatalf("no %s adapter", tc.head)
		}
		b, err := Bind(cmd, words(tc.words...))
		label := tc.head + " " + strings.Join(tc.words, " ")
		if why, ok := strings.CutPrefix(tc.err, "pass:"); ok {
			if err != nil {
				t.Errorf("%s: %v, want it to pass through", label, err)
			} else if !strings.Contains(b.Pass, why) || b.Spec.Parse != "none" {
				t.Errorf("%s: pass %q (parse %s), want it to pass through because %q", label, b.Pass, b.Spec.Parse, why)
			} else if got := argvText(b.Argv); got != tc.argv {
				t.Errorf("%s: argv %q, want %q", label, got, tc.argv)
			}
			continue
		}
		if tc.err != "" {
			if err == nil {
				t.Errorf("%s: bound to %q, want error %q", label, argvText(b.Argv), tc.err)
			} else if !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %q, want %q", label, err, tc.err)
			} else if ve, ok := err.(*value.Error); !ok || ve.Code != "arg_error" {
				t.Errorf("%s: error %T %v, want an arg_error", label, err, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", label, err)
			continue
		}
		if b.Pass != "" {
			t.Errorf("%s: passes through (%s), want it bound", label, b.Pass)
		}
		if got := argvText(b.Argv); got != tc.argv {
			t.Errorf("%s: argv %q, want %q", label, got, tc.argv)
		}
	}
}

func TestBindCoercesTypes(t *testing.T) {
	cmd, _ := Bundled().Lookup("cargo")
	b, err := Bind(cmd, []Word{{Kind: Positional, Value: value.Str("build")}, {Kind: Long, Name: "jobs"}, {Kind: Positional, Value: value.Int(3)}})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Args["jobs"].Value; got != value.Int(3) {
		t.Errorf("jobs = %#v", got)
	}
	if codes := b.OkCodes(); len(codes) != 1 || codes[0] != 0 {
		t.Errorf("ok codes %v", codes)
	}
	rg, _ := Bundled().Lookup("rg")
	b, err = Bind(rg, words("x"))
	if err != nil {
		t.Fatal(err)
	}
	if codes := b.OkCodes(); len(codes) != 2 {
		t.Errorf("rg ok codes %v, want [0 1]", codes)
	}
	if _, err := Bind(rg, []Word{{Kind: Positional, Value: value.NewRecord([]string{"a"}, []value.Value{value.Int(1)})}}); err == nil {
		t.Error("a record bound to rg's str pattern")
	}
}

func TestEffects(t *testing.T) {
	cat := Bundled()
	cases := []struct {
		head  string
		words []string
		want  string
	}{
		{"cargo", []string{"build", "--jobs", "8"}, "fs_read:. fs_write:./target net_connect:crates.io:443"},
		{"cargo", []string{"build", "--target_dir", "/tmp/t"}, "fs_read:. fs_write:./target fs_write:/tmp/t net_connect:crates.io:443"},
		{"cargo", []string{"test"}, "fs_read:. fs_write:./target net_connect:crates.io:443 proc_spawn:test-binaries"},
		{"git", []string{"push", "origin", "main"}, "fs_read:. net_connect:origin?"},
		{"git", []string{"push"}, "fs_read:. net_connect:$remote?"},
		{"git", []string{"clone", "https://github.com/a/b", "dst"}, "net_connect:github.com:443 fs_write:dst"},
		{"git", []string{"clone", "git@github.com:a/b.git"}, "net_connect:github.com:22 fs_write:$directory?"},
		{"curl", []string{"-o", "out.html", "http://example.com/"}, "net_connect:example.com:80 fs_write:out.html"},
		{"curl", []string{"https://example.com:8443/"}, "net_connect:example.com:8443"},
		{"tar", []string{"-czf", "a.tgz", "src"}, "fs_read:src fs_write:a.tgz"},
		{"tar", []string{"-xf", "a.tgz"}, "fs_read:a.tgz fs_write:."},
		{"du", nil, "fs_read:."},
		{"du", []string{"a", "b"}, "fs_read:a fs_read:b"},
		{"rg", []string{"x", "?"}, "fs_read:$paths?"},
		{"git", []string{"status"}, "fs_read:."},
		// Passing through keeps every declared effect; an unbound
		// target without a fallback is known only at run time.
		{"git", []string{"branch", "-vv"}, "fs_read:. fs_write:./.git fs_write:./.git"},
		{"git", []string{"commit", "--fixup", "HEAD"}, "fs_read:. fs_read:$file? fs_write:./.git"},
		{"git", []string{"add", "-p", "a.txt"}, "fs_read:. fs_write:./.git"},
		{"curl", []string{"--compressed", "https://example.com/"}, "net_connect:$url? fs_write:$output?"},
	}
	for _, tc := range cases {
		cmd, _ := cat.Lookup(tc.head)
		b, err := Bind(cmd, words(tc.words...))
		if err != nil {
			t.Errorf("%s %v: %v", tc.head, tc.words, err)
			continue
		}
		var got []string
		for _, e := range b.Effects() {
			s := e.Kind + ":" + e.Target
			if e.Dynamic {
				s += "?"
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s %v: effects %q, want %q", tc.head, tc.words, g, tc.want)
		}
	}
}

func TestParseTemplate(t *testing.T) {
	for _, bad := range []string{"fs.read", "fs.read()", "net.listen(x:1)", "fs.read($)", "fs.read($a|)", "fs.read(x) if "} {
		if _, err := ParseTemplate(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	tp, err := ParseTemplate("fs.write($dir/target|cwd) if create")
	if err != nil || tp.Param != "dir" || tp.Target != "/target" || tp.Fallback != "cwd" || tp.If != "create" || tp.Kind != "fs_write" {
		t.Errorf("template %+v, %v", tp, err)
	}
}
