package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/auth"
)

var secretRE = regexp.MustCompile(`^shoal_[A-Za-z0-9_-]{43}\n$`)

// runIn runs the command in-process against a store in dir.
func runIn(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb, time.Now)
	return code, out.String(), errb.String()
}

func setupEnv(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "xdg"))
	t.Setenv(auth.EnvStore, "")
	return dir
}

func TestUsageErrors(t *testing.T) {
	dir := setupEnv(t)
	sd := filepath.Join(dir, "sd")
	tests := []struct {
		args    []string
		wantErr string
	}{
		{nil, "missing command"},
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"create"}, "missing argument"},
		{[]string{"create", "a", "b", "c"}, "unexpected argument"},
		{[]string{"create", "a", "--ttl"}, "--ttl needs a value"},
		{[]string{"create", "a", "--ttl", "1h"}, "whole seconds"},
		{[]string{"create", "a", "--ttl", "99999999999999999"}, "out of range"},
		{[]string{"create", "a", "--cap"}, "--cap needs a value"},
		{[]string{"create", "a", "--cap", "x,y"}, `unknown cap "x,y"`}, // refused before the store sees it
		{[]string{"create", "a", "--cap", "fs.read", "--cap", "fs.reed"}, `unknown cap "fs.reed"`},
		{[]string{"create", "a", "--cap", "everything"}, `unknown cap "everything"`},
		{[]string{"create", "", "p"}, "empty"},
		{[]string{"create", "a", "--json"}, "unknown flag"},
		{[]string{"create", "a", "--state-dir="}, "non-empty"},
		{[]string{"list", "extra"}, "unexpected argument"},
		{[]string{"list", "--cap", "x"}, "unknown flag"},
		{[]string{"list", "--json=maybe"}, "takes no value"},
		{[]string{"revoke"}, "missing argument"},
		{[]string{"revoke", "a", "b"}, "unexpected argument"},
		{[]string{"revoke", "a", "--ttl", "3"}, "unknown flag"},
	}
	for _, tc := range tests {
		code, out, errs := runIn(t, append(tc.args, "--state-dir", sd)...)
		if len(tc.args) == 0 {
			code, out, errs = runIn(t)
		}
		if code != exitUsage || out != "" || !strings.Contains(errs, tc.wantErr) || !strings.Contains(errs, "usage:") {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want usage error containing %q", tc.args, code, out, errs, tc.wantErr)
		}
	}
	if toks, err := auth.Open(auth.StorePath(sd)).List(); err != nil || len(toks) != 0 {
		t.Errorf("usage errors created tokens: %v %v", toks, err)
	}
}

func TestHelp(t *testing.T) {
	setupEnv(t)
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"create", "--help"}, {"list", "-h"}} {
		code, out, _ := runIn(t, args...)
		if code != exitOK || !strings.HasPrefix(out, "usage:") {
			t.Errorf("%q: code %d stdout %q; want usage on stdout", args, code, out)
		}
	}
}

func TestCreateListRevokeInProcess(t *testing.T) {
	dir := setupEnv(t)
	sd := filepath.Join(dir, "state")

	// Flags before, between and after positionals, in both spellings.
	code, secret, errs := runIn(t, "create", "--cap", "fs.read", "agent:ci", "--ttl=3600", "ci", "-cap=proc.spawn", "--state-dir", sd)
	if code != exitOK || !secretRE.MatchString(secret) {
		t.Fatalf("create: code %d stdout %q stderr %q", code, secret, errs)
	}
	id := regexp.MustCompile(`created ([0-9a-f]{16})`).FindStringSubmatch(errs)
	if id == nil {
		t.Fatalf("create stderr %q names no id", errs)
	}
	tok, err := auth.Open(auth.StorePath(sd)).Validate(strings.TrimSuffix(secret, "\n"))
	if err != nil || tok.Principal != "agent:ci" || tok.Profile != "ci" ||
		strings.Join(tok.Caps, " ") != "fs.read proc.spawn" || tok.Expires.IsZero() {
		t.Fatalf("created token = %+v, %v", tok, err)
	}
	if d := time.Until(tok.Expires); d < 59*time.Minute || d > time.Hour {
		t.Errorf("expiry %v from now; want about an hour", d)
	}

	code, _, _ = runIn(t, "create", "bob", "--state-dir", sd)
	if code != exitOK {
		t.Fatalf("create without profile: %d", code)
	}
	code, out, _ := runIn(t, "list", "--state-dir", sd)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != exitOK || len(lines) != 2 {
		t.Fatalf("list: code %d out %q", code, out)
	}
	want := []string{id[1], "agent:ci", "ci", "fs.read,proc.spawn", tok.Expires.Format(time.RFC3339), "active"}
	if got := strings.Split(lines[0], "\t"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("list line %q; want fields %q", lines[0], want)
	}
	if f := strings.Split(lines[1], "\t"); len(f) != 6 || f[1] != "bob" || f[2] != "default" || f[3] != "-" || f[4] != "never" {
		t.Errorf("list line %q", lines[1])
	}

	if code, _, errs := runIn(t, "revoke", "--state-dir", sd, id[1]); code != exitOK {
		t.Fatalf("revoke: %d %s", code, errs)
	}
	if code, _, errs := runIn(t, "revoke", "0000000000000000", "--state-dir", sd); code != exitFailure || !strings.Contains(errs, "unknown token id") {
		t.Errorf("revoke unknown: code %d stderr %q", code, errs)
	}
	code, out, _ = runIn(t, "list", "--json", "--state-dir", sd)
	var listed []map[string]any
	if err := json.Unmarshal([]byte(out), &listed); code != exitOK || err != nil || len(listed) != 2 {
		t.Fatalf("list --json: code %d err %v out %q", code, err, out)
	}
	if listed[0]["id"] != id[1] || listed[0]["revoked"] != true || listed[0]["state"] != "revoked" {
		t.Errorf("list --json first entry %v", listed[0])
	}
	if _, ok := listed[1]["expires"]; ok {
		t.Errorf("token without ttl lists an expiry: %v", listed[1])
	}
	if strings.Contains(out, "digest") || strings.Contains(out, "key") {
		t.Errorf("list --json leaks store internals: %s", out)
	}
}

func TestNonPositiveTTLIsExpired(t *testing.T) {
	dir := setupEnv(t)
	for _, ttl := range []string{"0", "-5"} {
		code, secret, errs := runIn(t, "create", "agent:x", "p", "--ttl", ttl, "--state-dir", dir)
		if code != exitOK || !strings.Contains(errs, "already expired") {
			t.Fatalf("--ttl %s: code %d stderr %q", ttl, code, errs)
		}
		if _, err := auth.Open(auth.StorePath(dir)).Validate(strings.TrimSuffix(secret, "\n")); err == nil {
			t.Errorf("--ttl %s token validates", ttl)
		}
	}
	_, out, _ := runIn(t, "list", "--state-dir", dir)
	if strings.Count(out, "\texpired\n") != 2 {
		t.Errorf("list %q; want two expired tokens", out)
	}
}

func TestEnvStoreOverridesStateDir(t *testing.T) {
	dir := setupEnv(t)
	store := filepath.Join(dir, "elsewhere", "t.json")
	t.Setenv(auth.EnvStore, store)
	code, secret, _ := runIn(t, "create", "agent:e", "p", "--state-dir", filepath.Join(dir, "ignored"))
	if code != exitOK {
		t.Fatal(code)
	}
	if _, err := auth.Open(store).Validate(strings.TrimSuffix(secret, "\n")); err != nil {
		t.Errorf("token not in $%s: %v", auth.EnvStore, err)
	}
	// Without --state-dir the default (XDG) location is used when the
	// variable is unset.
	t.Setenv(auth.EnvStore, "")
	code, secret, _ = runIn(t, "create", "agent:d", "p")
	if code != exitOK {
		t.Fatal(code)
	}
	if _, err := auth.Open(filepath.Join(dir, "xdg", "shoal", "tokens.json")).Validate(strings.TrimSuffix(secret, "\n")); err != nil {
		t.Errorf("token not in the XDG state dir: %v", err)
	}
}
