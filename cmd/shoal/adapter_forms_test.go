package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/adapters"
)

// adapterForm is one everyday form of a bundled adapter's program, run
// through the built shoal as `shoal -c SRC` in a prepared directory.
// Every form must reach the program: a form the adapter models gives its
// typed value, one it does not passes through and gives the program's own
// output; want is a regular expression stdout must match (multi-line).
type adapterForm struct {
	head string // the bundled head the form exercises
	bin  string // the program that must be installed ("": head's bin)
	dir  string // "repo" (a git repository with an upstream), "empty" (git init only) or "" (the scratch dir)
	src  string
	want string
	// fails: the program itself exits non-zero (the stderr must match
	// want instead): proof the words reached it rather than being refused.
	fails bool
}

// adapterForms are the documented forms, per bundled head. Heads whose
// program only answers with a service behind it (a daemon, a cloud
// account) are exercised by a form the program answers alone.
var adapterForms = []adapterForm{
	// git: the typed forms, and the everyday forms that pass through.
	{head: "git", dir: "empty", src: "git status", want: `\AOn branch main · no commits yet\nnothing to commit, working tree clean\n\z`},
	{head: "git", dir: "empty", src: `(git status -b).out.branch`, want: `\Amain\n\z`},
	{head: "git", dir: "repo", src: "git status", want: `\AOn branch main · origin/main · ahead 1\nstatus +state +path +orig\n[─ ]+\n\.M +modified +a\.txt *\n\? +untracked +new\.txt *\n\z`},
	{head: "git", dir: "repo", src: `let s = (git status --short --branch).out; [s.branch, s.upstream, s.ahead, s.behind, s.changes.len()].map(x => x.display()).join(" ")`, want: `\Amain origin/main 1 0 2\n\z`},
	{head: "git", dir: "repo", src: `(git status).out.where(.state == "modified").map(.path)`, want: `\A0  a\.txt\n\z`},
	{head: "git", dir: "repo", src: "git status --porcelain", want: `\A M a\.txt\n\?\? new\.txt\n\z`},
	{head: "git", dir: "repo", src: "git status -uno", want: `(?m)^Changes not staged for commit:`},
	{head: "git", dir: "repo", src: "git log --oneline", want: `\A[0-9a-f]{7,} second\n[0-9a-f]{7,} first\n\z`},
	{head: "git", dir: "repo", src: "git log --graph --format=%s", want: `\A\* second\n\* first\n\z`},
	{head: "git", dir: "repo", src: "git log --format=%s -n 1", want: `\Asecond\n\z`},
	{head: "git", dir: "repo", src: `(git log -n 1).out.map(.subject)`, want: `\A0  second\n\z`},
	{head: "git", dir: "repo", src: `(git log -n1).out.len()`, want: `\A1\n\z`},
	{head: "git", dir: "repo", src: `(git log --follow a.txt).out.map(.subject)`, want: `\A0  first\n\z`},
	{head: "git", dir: "repo", src: `(git log --oneline -3).argv.join(" ")`, want: `git log --oneline -3\n\z`},
	{head: "git", dir: "repo", src: "git log > log.txt; cat log.txt", want: `(?m)^Author: Test <test@example\.com>$`},
	{head: "git", dir: "repo", src: "git diff --stat", want: `a\.txt \| 1 \+\n 1 file changed, 1 insertion\(\+\)\n\z`},
	{head: "git", dir: "repo", src: "git diff --name-only", want: `\Aa\.txt\n\z`},
	{head: "git", dir: "repo", src: "git show --stat --format=%s HEAD~1", want: `\Afirst\n`},
	{head: "git", dir: "repo", src: "git branch -vv", want: `(?m)^\* main +[0-9a-f]+ \[origin/main: ahead 1\] second$`},
	{head: "git", dir: "repo", src: "git branch", want: `\A\* main\n\z`},
	{head: "git", dir: "repo", src: "git remote -v", want: `(?m)^origin\t.*\(fetch\)$`},
	{head: "git", dir: "repo", src: "(git remote).out", want: `\A0  origin\n\z`},
	{head: "git", dir: "repo", src: "git commit --dry-run -a", want: `(?m)^Changes to be committed:`},
	{head: "git", dir: "repo", src: "git add --dry-run new.txt", want: `\Aadd 'new\.txt'\n\z`},
	{head: "git", dir: "repo", src: "git stash; git stash list; git stash pop -q; git status --porcelain", want: `stash@\{0\}: WIP on main: [0-9a-f]+ second\n M a\.txt\n\?\? new\.txt\n\z`},
	{head: "git", dir: "repo", src: "(git stash_list).out.len()", want: `\A0\n\z`},
	{head: "git", dir: "repo", src: "git rev-parse --abbrev-ref HEAD", want: `\Amain\n\z`},
	{head: "git", dir: "repo", src: "git -C . tag -l", want: `\A\z`},
	{head: "git", dir: "repo", src: "git log --no-such-flag", want: `unrecognized argument: --no-such-flag`, fails: true},

	// Rust and other ecosystems.
	{head: "cargo", dir: "", src: `(cargo metadata --no_deps --offline).out.packages.map(.name)`, want: `\A0  demo\n\z`},
	{head: "cargo", dir: "", src: "cargo build --frobnicate", want: `unexpected argument '--frobnicate'`, fails: true},
	{head: "rustup", src: "rustup --version", want: `rustup`},
	{head: "go", src: `(go list -m).out.Path`, want: `\Aexample\.com/demo\n\z`},
	{head: "go", src: "go list -m -f '{{.GoVersion}}'", want: `\A1\.21\n\z`},
	{head: "go", src: `(go list ./...).out.map(.ImportPath)`, want: `\A0  example\.com/demo\n1  example\.com/demo/sub\n\z`},
	{head: "go", src: "go list ./...", want: `(?s)ImportPath.*example\.com/demo/sub`},
	{head: "npm", src: "npm --version", want: `\A\d+\.\d+`},
	{head: "pip", src: `(pip list --disable-pip-version-check).out.len() > 0`, want: `\Atrue\n\z`},
	{head: "pip", src: "pip --version", want: `\Apip `},
	{head: "pnpm", src: "pnpm --version", want: `\d`},
	{head: "uv", src: "uv --version", want: `uv`},
	{head: "yarn", src: "yarn --version", want: `\d`},
	{head: "brew", src: "brew --version", want: `Homebrew`},
	{head: "bun", src: "bun --version", want: `\d`},
	{head: "jj", src: "jj --version", want: `jj`},
	{head: "sqlite3", src: `(sqlite3 ":memory:" "select 1 as x, 'a' as y").out.first().x`, want: `\A1\n\z`},
	{head: "sqlite3", src: `sqlite3 -csv ":memory:" "select 1, 2"`, want: `\A1,2\n\z`},
	{head: "sqlite3", src: `(sqlite3 ":memory:").argv.join(" ")`, want: `sqlite3 :memory:\n\z`},

	// Interpreters: the block form and the command form.
	{head: "bash", src: "bash { echo hi from bash }", want: `\Ahi from bash\n\z`},
	{head: "bash", src: `bash -c 'echo $0' named`, want: `\Anamed\n\z`},
	{head: "python", bin: "python3", src: "python { print(6 * 7) }", want: `\A42\n\z`},
	{head: "python", bin: "python3", src: "python --version", want: `\APython 3`},
	{head: "node", src: "node { console.log(6 * 7) }", want: `\A42\n\z`},
	{head: "node", src: "node --version", want: `\Av\d`},
	{head: "ruby", src: "ruby { puts 6 * 7 }", want: `\A42\n\z`},
	{head: "deno", src: "deno --version", want: `deno`},
	{head: "jq", src: `jq -n "1 + 1"`, want: `\A2\n\z`},
	{head: "jq", src: `(jq -n '[1, 2] | length').out`, want: `\A2\n\z`},
	{head: "yq", src: "yq --version", want: `yq`},

	// Host inspection: the typed forms, and what passes through.
	{head: "ps", src: `(ps).where(.pid == 1).len()`, want: `\A1\n\z`},
	{head: "ps", src: "ps -o pid= -p 1", want: `\A *1\n\z`},
	{head: "df", src: `(df /).out.first().mounted`, want: `\A/\n\z`},
	{head: "df", src: `(df -h /).out.len()`, want: `\A1\n\z`},
	{head: "df", src: "df -i /", want: `(?m)^Filesystem +Inodes`},
	{head: "du", src: `(du -s .).out.first().path`, want: `\A\.\n\z`},
	{head: "du", src: "du -sh --apparent-size .", want: `\t\.\n\z`},
	{head: "who", src: `(who).out.len() >= 0`, want: `\Atrue\n\z`},
	{head: "vmstat", src: `(vmstat).out.len()`, want: `\A1\n\z`},
	{head: "vmstat", src: "vmstat -s", want: `total memory`},
	{head: "lsblk", src: "lsblk --version", want: `lsblk`},
	{head: "findmnt", src: `(findmnt).out.filesystems.len() > 0`, want: `\Atrue\n\z`},
	{head: "findmnt", src: "findmnt -n -o TARGET /", want: `\A/\n\z`},
	{head: "lscpu", src: `(lscpu).out.lscpu.len() > 0`, want: `\Atrue\n\z`},
	{head: "ip", src: `(ip link).out.where(.ifname == "lo").len()`, want: `\A1\n\z`},
	{head: "ip", src: "ip -o link show lo", want: `\A1: lo:`},
	{head: "ss", src: "ss --version", want: `ss utility`},
	{head: "systemctl", src: "systemctl --version", want: `\Asystemd \d`},
	{head: "journalctl", src: "journalctl --version", want: `\Asystemd \d`},
	{head: "systemd-analyze", src: "systemd-analyze --version", want: `\Asystemd \d`},

	// Search.
	{head: "rg", src: `(rg -F needle).out.where(.type == "match").len()`, want: `\A1\n\z`},
	{head: "rg", src: "rg -l needle", want: `\A0  notes\.txt\n\z`},
	{head: "fd", src: `(fd notes).out`, want: `\A0  notes\.txt\n\z`},

	// Transfer and archives.
	{head: "curl", src: `curl -s (file_url)`, want: `\Aone needle\n\z`},
	{head: "curl", src: `curl -sS --compressed (file_url)`, want: `\Aone needle\n\z`},
	{head: "tar", src: "tar -czf n.tgz notes.txt; tar -tzf n.tgz", want: `\Anotes\.txt\n\z`},
	{head: "zip", src: "zip -q n.zip notes.txt; (unzip list n.zip).out", want: `\A0  notes\.txt\n\z`},
	{head: "unzip", bin: "zip", src: "zip -q n.zip notes.txt; unzip -l n.zip", want: `(?m)notes\.txt\n`},
	{head: "unzip", src: "unzip -v", want: `UnZip`},

	// Services: the program answers without its service.
	{head: "docker", src: "docker --version", want: `\ADocker version`},
	{head: "podman", src: "podman --version", want: `podman version`},
	{head: "kubectl", src: "kubectl version --client", want: `Client Version`},
	{head: "helm", src: "helm version --short", want: `v\d`},
	{head: "terraform", src: "terraform version", want: `\ATerraform v`},
	{head: "aws", src: "aws --version", want: `aws-cli/`},
	{head: "gcloud", src: "gcloud --version", want: `Google Cloud SDK`},
	{head: "gh", src: "gh --version", want: `gh version`},
}

// TestBundledAdapterForms runs every bundled adapter's everyday forms
// through the built shoal against the real program, skipping a program
// that is not installed; every bundled head has at least one form.
func TestBundledAdapterForms(t *testing.T) {
	covered := map[string]bool{}
	for _, f := range adapterForms {
		covered[f.head] = true
	}
	for _, head := range adapters.Bundled().Names() {
		if !covered[head] {
			t.Errorf("bundled adapter %s has no form in adapterForms", head)
		}
	}
	if testing.Short() {
		t.Skip("runs real programs")
	}
	bin := filepath.Join(t.TempDir(), "shoal")
	if out, err := goBuild("-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	realHome, _ := os.UserHomeDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH"),
		"GIT_CONFIG_GLOBAL=" + filepath.Join(home, "gitconfig"), "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOCACHE=" + filepath.Join(home, "gocache"), "GOPATH=" + filepath.Join(home, "go"),
		"NO_COLOR=1", "LC_ALL=C.UTF-8", "TZ=UTC"}
	// rustup's toolchains live in the real home; they are only read.
	for _, kv := range [][2]string{{"RUSTUP_HOME", ".rustup"}, {"CARGO_HOME", ".cargo"}} {
		if v := os.Getenv(kv[0]); v != "" {
			env = append(env, kv[0]+"="+v)
		} else if realHome != "" {
			env = append(env, kv[0]+"="+filepath.Join(realHome, kv[1]))
		}
	}
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// dirs are made fresh for each form, so forms that change a
	// repository do not affect the next.
	prepare := func(kind string) string {
		t.Helper()
		base := t.TempDir()
		switch kind {
		case "empty":
			git(base, "init", "-q", "-b", "main")
			return base
		case "repo":
			up := filepath.Join(base, "up")
			write(filepath.Join(up, "a.txt"), "one\n")
			git(up, "init", "-q", "-b", "main")
			git(up, "add", "a.txt")
			git(up, "commit", "-q", "-m", "first")
			work := filepath.Join(base, "work")
			git(base, "clone", "-q", up, work)
			git(work, "commit", "-q", "--allow-empty", "-m", "second")
			write(filepath.Join(work, "a.txt"), "one\ntwo\n")
			write(filepath.Join(work, "new.txt"), "new\n")
			return work
		}
		write(filepath.Join(base, "notes.txt"), "one needle\n")
		write(filepath.Join(base, "Cargo.toml"), "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
		write(filepath.Join(base, "src", "lib.rs"), "")
		write(filepath.Join(base, "go.mod"), "module example.com/demo\n\ngo 1.21\n")
		write(filepath.Join(base, "demo.go"), "package demo\n")
		write(filepath.Join(base, "sub", "sub.go"), "package sub\n")
		return base
	}
	cat := adapters.Bundled()
	for _, f := range adapterForms {
		t.Run(f.head+"/"+f.src, func(t *testing.T) {
			prog := f.bin
			if prog == "" {
				cmd, _ := cat.Lookup(f.head)
				prog = cmd.Bin
			}
			if _, err := exec.LookPath(prog); err != nil {
				t.Skipf("%s is not installed", prog)
			}
			dir := prepare(f.dir)
			src := "let file_url = \"file://" + filepath.Join(dir, "notes.txt") + "\"\n" + f.src
			cmd := exec.Command(bin, "-c", src)
			cmd.Dir, cmd.Env = dir, env
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			if f.fails {
				got = errb.String()
				if code == 0 {
					t.Errorf("exit 0, want the program's own failure; stdout %q", out.String())
				}
				if strings.Contains(got, "arg_error") {
					t.Errorf("refused before the program ran: %s", got)
				}
			} else if code != 0 {
				t.Errorf("exit %d; stderr:\n%s", code, errb.String())
			}
			if !regexp.MustCompile(f.want).MatchString(got) {
				t.Errorf("output does not match %s:\n%s\nstderr:\n%s", f.want, got, errb.String())
			}
		})
	}
}
