package eval

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
)

// gateCase is one piece of Shoal run under a deny-all host.
//
// A denied case must fail with `denied` after the gate was asked exactly
// once (the first ask is refused and nothing runs after it). A case that
// is not denied must call the host for nothing at all: it touches no file,
// process, environment, clock or system fact, and then it fails with
// code, or succeeds when code is "".
//
// In both kinds the temp tree (contents, modes and mtimes) must be left as
// it was. A spawning case would, if it ran, create the file `marker`; its
// control run under AllowAll proves it does.
type gateCase struct {
	src      string
	denied   bool
	code     string
	spawning bool
}

// gateFiles is the fixture every case starts from.
var gateFiles = map[string]string{
	"a.txt":     "hello",
	"sub/x.txt": "x",
	"lib.shl":   "let v = 1",
	"s.sh":      "touch marker",
	"tool":      "#!/bin/sh\ntouch marker\n",
}

// gateBuiltinCases has cases for every builtin of eval's registry, by
// name (a library package's entries have theirs beside them, e.g.
// internal/lib/fs's gate_test.go).
var gateBuiltinCases = map[string][]gateCase{
	// Pure builtins: no host call.
	"echo":  {{src: "echo hi"}},
	"env":   {{src: "env HOME"}, {src: "env"}},
	"exit":  {{src: "exit 3"}},
	"quit":  {{src: "quit"}},
	"sleep": {{src: "sleep 1ms"}},
	"jobs":  {{src: "jobs"}},
	"wait":  {{src: "wait"}, {src: "wait (spawn { 1 })"}, {src: "wait (spawn { cat a.txt })", denied: true}},
	"fg":    {{src: "fg (spawn { 1 })"}, {src: "fg", code: "not_found"}},
	"bg":    {{src: "bg (spawn { 1 })"}},
	"kill":  {{src: "kill (spawn { sleep 1s })"}, {src: "kill -0 1", denied: true}},
	"now":   {{src: "now", denied: true}, {src: "now()", denied: true}, {src: "now(1)", code: "arg_error"}},
	"today": {{src: "today", denied: true}, {src: "today()", denied: true}},
	"help":  {{src: "help"}, {src: "help ls"}, {src: "ls --help"}, {src: "help nosuchthing", code: "not_found"}},
	// plan and explain derive without asking the host; apply runs the
	// stored program through the gate.
	"plan":    {{src: "plan { touch marker; sh { touch marker } }"}, {src: "plan rm a.txt"}},
	"explain": {{src: "explain 'rm --permanent a.txt'"}},
	"apply":   {{src: "let p = (plan { cat a.txt })\napply p", denied: true}, {src: "apply 9", code: "not_found"}},

	// Builtins that reach the host.
	"which": {{src: "which sh", denied: true}, {src: "which echo"}},
	// No terminal here: refused before the host is asked anything.
	"interact": {{src: `interact sh -c "touch marker"`, code: "no_terminal"}, {src: "interact", code: "arg_error"}},
	"run":      {{src: "run s.sh", denied: true, spawning: true}, {src: "run lib.shl", denied: true}, {src: "run ./tool", denied: true, spawning: true}},
	"source":   {{src: "source lib.shl", denied: true}},
}

// gateHostMethodCases has cases for every host method, by name.
var gateHostMethodCases = map[string][]gateCase{
	// Task handles: the task's own work is gated when it runs.
	"await":        {{src: "(spawn { 1 }).await()"}, {src: "(spawn { sh { touch marker } }).await()", denied: true, spawning: true}},
	"wait":         {{src: "(spawn { 1 }).wait()"}, {src: "(spawn { cat a.txt }).wait()", denied: true}},
	"is_done":      {{src: "(spawn { 1 }).is_done()"}},
	"cancel":       {{src: "(spawn { 1 }).cancel()"}},
	"suspend":      {{src: "(spawn { 1 }).suspend()"}},
	"resume":       {{src: "(spawn { 1 }).resume()"}},
	"is_suspended": {{src: "(spawn { 1 }).is_suspended()"}},
	"save":         {{src: `["x"].stream().save("a.txt")`, denied: true}},
	"append":       {{src: `["x"].stream().append("new.txt")`, denied: true}},
	// Stream sinks without effects of their own.
	"render": {{src: `[1].stream().render()`}},
	"into":   {{src: `[1].stream().into(channel("user.x"))`}},
}

// gateOtherCases covers the remaining ways to reach the host: commands,
// interpreter blocks, feeding, redirects, globs and modules (the os
// namespace's are internal/stdlib's gate_sys_test.go).
var gateOtherCases = []gateCase{
	{src: "sh { touch marker }", denied: true, spawning: true},
	{src: "(sh { touch marker })", denied: true, spawning: true},
	{src: "let o = (sh { touch marker })\no.ok", denied: true, spawning: true},
	{src: `sh -c "touch marker"`, denied: true, spawning: true},
	{src: `(sh -c "touch marker").ok`, denied: true, spawning: true},
	{src: `/bin/sh -c "touch marker"`, denied: true, spawning: true},
	{src: `^sh -c "touch marker"`, denied: true, spawning: true},
	{src: `"touch marker".feed(sh)`, denied: true, spawning: true},
	{src: `"ignored".feed(sh { touch marker })`, denied: true, spawning: true},
	{src: `./tool`, denied: true, spawning: true},
	{src: `echo hi > a.txt`, denied: true},
	{src: `echo hi >> new.txt`, denied: true},
	{src: `sh -c "touch marker" > out.txt`, denied: true, spawning: true},
	{src: `cat < a.txt`, denied: true},
	{src: `glob("*.txt").expand()`, denied: true},
	{src: `glob("*.txt").len()`, denied: true},
	{src: "use lib", denied: true},
	{src: `with cwd: "sub" { pwd }`, denied: true},
	{src: "1s.ago()", denied: true},
	{src: "1h.from_now()", denied: true},
	{src: `t"2024-01-02T03:04Z" - 1s`},
}

// TestGateDenyAll runs every builtin, every host method and every other
// route to the host under a deny-all host and checks each is refused
// before any effect, or never asks the host at all.
func TestGateDenyAll(t *testing.T) {
	if missing, extra := gateCoverage(ownRegistry.BuiltinNames(), gateBuiltinCases); len(missing)+len(extra) > 0 {
		t.Fatalf("builtins without a gate case: %v; cases for unknown builtins: %v", missing, extra)
	}
	var methods []string
	for _, byName := range ownRegistry.methods {
		for name, m := range byName {
			if m.Call != nil {
				methods = append(methods, name)
			}
		}
	}
	if missing, extra := gateCoverage(methods, gateHostMethodCases); len(missing)+len(extra) > 0 {
		t.Fatalf("host methods without a gate case: %v; cases for unknown methods: %v", missing, extra)
	}
	var all []gateCase
	for _, m := range []map[string][]gateCase{gateBuiltinCases, gateHostMethodCases} {
		for _, name := range sortedKeys(m) {
			all = append(all, m[name]...)
		}
	}
	all = append(all, gateOtherCases...)
	for _, tc := range all {
		t.Run(tc.src, func(t *testing.T) { runGateCase(t, tc) })
	}
}

func runGateCase(t *testing.T, tc gateCase) {
	var asked []host.Op
	deny := host.AuthorizerFunc(func(ctx context.Context, op host.Op) error {
		asked = append(asked, op)
		return host.DenyAll.Authorize(ctx, op)
	})
	rec := host.NewRecording(host.NewOS(deny))
	in, dir := gateSession(t, rec)
	root := filepath.Dir(dir)
	before := evaltest.Snapshot(t, root)
	_, err := in.Eval(context.Background(), tc.src)
	if after := evaltest.Snapshot(t, root); !reflect.DeepEqual(before, after) {
		t.Errorf("tree changed:\nbefore %v\nafter  %v", before, after)
	}
	ops := rec.Ops()
	switch {
	case tc.denied:
		if bfsCode(err) != "denied" {
			t.Fatalf("got %v, want a denial", err)
		}
		if len(asked) != 1 {
			t.Errorf("asked the gate %d times (%v); want exactly the refused op", len(asked), asked)
		}
	default:
		if bfsCode(err) != tc.code {
			t.Fatalf("got %v, want code %q", err, tc.code)
		}
		if len(ops) != 0 {
			t.Errorf("asked the host for %v; want nothing", ops)
		}
	}
	if tc.spawning {
		if _, err := os.Stat(filepath.Join(dir, "marker")); err == nil {
			t.Fatal("marker exists: the process ran")
		}
		// Control: allowed, the same source does start the process.
		in, dir := gateSession(t, host.NewOS(host.AllowAll))
		_, _ = in.Eval(context.Background(), tc.src)
		if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
			t.Errorf("control run under AllowAll made no marker (%v): the case proves nothing", err)
		}
	}
}

func gateSession(t *testing.T, h host.Host) (*Interp, string) {
	t.Helper()
	in, dir := bfsSession(t, h, gateFiles)
	if err := os.Chmod(filepath.Join(dir, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	in.env = append(in.env, "USER=gate")
	return in, dir
}

// gateCoverage compares registered names with the names that have cases.
func gateCoverage(registered []string, cases map[string][]gateCase) (missing, extra []string) {
	for _, n := range registered {
		if len(cases[n]) == 0 {
			missing = append(missing, n)
		}
	}
	for n := range cases {
		if !slices.Contains(registered, n) {
			extra = append(extra, n)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

func sortedKeys(m map[string][]gateCase) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
