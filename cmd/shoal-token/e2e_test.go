package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/internal/auth"
)

// buildBinary compiles shoal-token into a temp dir.
func buildBinary(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the binary")
	}
	bin := filepath.Join(t.TempDir(), "shoal-token")
	cmd := exec.Command(goBin, "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // pure Go, as shipped
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// cleanEnv is the environment without any store override, with HOME and
// XDG_STATE_HOME under home.
func cleanEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != auth.EnvStore && k != "HOME" && k != "XDG_STATE_HOME" {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "xdg"))
}

type result struct {
	code           int
	stdout, stderr string
}

func runBin(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", bin, err)
	}
	return result{code, out.String(), errb.String()}
}

func TestBinaryEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	home := t.TempDir()
	env := cleanEnv(home)
	sd := filepath.Join(home, "state")

	r := runBin(t, bin, env, "create", "agent:reviewer", "reviewer", "--cap", "fs.read", "--cap", "proc.spawn", "--ttl", "3600", "--state-dir", sd)
	if r.code != 0 || !secretRE.MatchString(r.stdout) {
		t.Fatalf("create: %+v", r)
	}
	secret := strings.TrimSpace(r.stdout)

	if fi, err := os.Stat(sd); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state dir: %v %v; want mode 700", fi, err)
	}
	data, err := os.ReadFile(auth.StorePath(sd))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(secret[len(auth.SecretPrefix):])) {
		t.Errorf("store holds the secret")
	}
	tok, err := auth.Open(auth.StorePath(sd)).Validate(secret)
	if err != nil || tok.Principal != "agent:reviewer" {
		t.Fatalf("Validate: %+v %v", tok, err)
	}

	r = runBin(t, bin, env, "list", "--state-dir", sd)
	if f := strings.Fields(r.stdout); r.code != 0 || len(f) != 6 || f[0] != tok.ID || f[1] != "agent:reviewer" || f[2] != "reviewer" || f[5] != "active" {
		t.Errorf("list: %+v", r)
	}
	r = runBin(t, bin, env, "revoke", tok.ID, "--state-dir", sd)
	if r.code != 0 || r.stdout != "" {
		t.Errorf("revoke: %+v", r)
	}
	r = runBin(t, bin, env, "list", "--json", "--state-dir", sd)
	var listed []struct {
		ID      string `json:"id"`
		Revoked bool   `json:"revoked"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &listed); err != nil || len(listed) != 1 || listed[0].ID != tok.ID || !listed[0].Revoked {
		t.Errorf("list --json after revoke: %+v (%v)", r, err)
	}
	if _, err := auth.Open(auth.StorePath(sd)).Validate(secret); err == nil {
		t.Errorf("revoked token still validates")
	}

	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"revoke", "ffffffffffffffff", "--state-dir", sd}, 1},
		{[]string{"create"}, 2},
		{[]string{"list", "--bogus"}, 2},
		{nil, 2},
	} {
		if r := runBin(t, bin, env, c.args...); r.code != c.code || r.stdout != "" || r.stderr == "" {
			t.Errorf("%q: %+v; want exit %d with a message on stderr only", c.args, r, c.code)
		}
	}

	// $SHOAL_TOKEN_STORE wins over --state-dir.
	store := filepath.Join(home, "override.json")
	r = runBin(t, bin, append(env, auth.EnvStore+"="+store), "create", "agent:o", "p", "--state-dir", sd)
	if r.code != 0 {
		t.Fatalf("create with override: %+v", r)
	}
	if _, err := auth.Open(store).Validate(strings.TrimSpace(r.stdout)); err != nil {
		t.Errorf("override store: %v", err)
	}
}

// TestBinaryConcurrentCreates runs many shoal-token processes at once; the
// store must end up with every token.
func TestBinaryConcurrentCreates(t *testing.T) {
	bin := buildBinary(t)
	home := t.TempDir()
	env := cleanEnv(home)
	const n = 16
	secrets := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "create", fmt.Sprintf("agent:%d", i), "p")
			cmd.Env = env
			out, err := cmd.Output()
			if err != nil {
				errs <- fmt.Sprintf("create %d: %v", i, err)
				return
			}
			secrets[i] = strings.TrimSpace(string(out))
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	store := auth.Open(filepath.Join(home, "xdg", "shoal", "tokens.json"))
	toks, err := store.List()
	if err != nil || len(toks) != n {
		t.Fatalf("store holds %d tokens (%v); want %d", len(toks), err, n)
	}
	for i, s := range secrets {
		if tok, err := store.Validate(s); err != nil || tok.Principal != fmt.Sprintf("agent:%d", i) {
			t.Errorf("token %d: %+v %v", i, tok, err)
		}
	}
}
