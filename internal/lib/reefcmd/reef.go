// Package reefcmd is the reef command: the table of the tool versions
// this directory's scopes bind (reef, reef status) and its subcommands
// add, lock, fetch and doctor (docs/shoal.md, "Reef"). Binding a
// constrained command head when it runs, `which` and `with reef:` are the
// language's and stay in eval; the command reaches the session's Reef
// state (its chain, lock, resolver and trust) through eval's
// Context.Reef. Its entries are one registry Part.
package reefcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/value"
)

// Register adds reef to p.
func Register(p *eval.Part) {
	p.Builtin(&eval.Builtin{Name: "reef", Help: eval.Help{Summary: "which tool versions this directory's scopes bind, and their locks: reef, reef add TOOL@VERSION, reef lock [--refresh], reef doctor", Usage: "reef [add TOOL@VERSION | lock [--refresh] | doctor | fetch]", Example: "reef\nreef add node@20\nreef lock\nreef doctor"}, Run: runReef, Flags: []leash.FlagSpec{{Long: "refresh"}}, Effects: effReef})
}

// Part is reefcmd's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}

// effReef: every form reads the manifests from the working directory up,
// the lock and candidate executables (where depends on what they say);
// add writes a manifest and the lock, lock writes the lock, and a version
// probe or fetch runs a program.
func effReef(d *leash.Deriver) {
	d.Add(leash.Effect{Kind: host.EnvRead, Name: "*"}, leash.Reversible)
	d.Add(leash.Effect{Kind: host.FSRead, Name: "reef manifests, lock and candidates", Dynamic: true}, leash.Reversible)
	ps := d.Positional()
	sub := ""
	if len(ps) > 0 {
		sub, _ = d.Word(ps[0])
	}
	switch sub {
	case "add", "lock":
		d.Add(leash.Effect{Kind: host.FSWrite, Name: "reef manifest and lock", Dynamic: true}, leash.Irreversible)
	}
	switch sub {
	case "", "status", "add", "lock", "fetch":
		d.Add(leash.Effect{Kind: host.ProcSpawn, Name: "reef version probe or mise install", Dynamic: true}, leash.Irreversible)
	}
}

// runReef dispatches on the subcommand.
func runReef(c *eval.BuiltinCall) (value.Value, error) {
	if len(c.Args) == 0 {
		if c.Flag("refresh") {
			return nil, c.Errorf(value.CodeArg, "--refresh belongs to `reef lock`")
		}
		return reefTable(c.Context)
	}
	sub, err := c.ArgText(0)
	if err != nil {
		return nil, err
	}
	rest := c.Args[1:]
	if sub != "lock" && c.Flag("refresh") {
		return nil, c.Errorf(value.CodeArg, "--refresh belongs to `reef lock`")
	}
	switch sub {
	case "status": // the recipes' spelling of the bare table
		if len(rest) != 0 {
			return nil, c.Errorf(value.CodeArg, "status takes no arguments")
		}
		return reefTable(c.Context)
	case "add":
		if len(rest) != 1 {
			return nil, c.Errorf(value.CodeArg, "add takes one TOOL@VERSION, got %d arguments", len(rest))
		}
		spec, err := eval.CommandText(rest[0])
		if err != nil {
			return nil, err
		}
		return reefAdd(c.Context, spec)
	case "lock":
		if len(rest) != 0 {
			return nil, c.Errorf(value.CodeArg, "lock takes no arguments (only --refresh)")
		}
		return reefLockAll(c.Context, c.Flag("refresh"))
	case "doctor":
		if len(rest) != 0 {
			return nil, c.Errorf(value.CodeArg, "doctor takes no arguments")
		}
		return reefDoctor(c.Context)
	case "fetch":
		if len(rest) != 1 {
			return nil, c.Errorf(value.CodeArg, "fetch takes one tool name, got %d arguments", len(rest))
		}
		tool, err := eval.CommandText(rest[0])
		if err != nil {
			return nil, err
		}
		return reefFetch(c.Context, tool)
	}
	return nil, c.Errorf(value.CodeArg, "unknown subcommand `%s` (expected status, add, lock, fetch or doctor)", sub)
}

// reefTable is bare `reef`: one row per constrained tool, resolved as an
// interactive session would into a working copy of the lock (nothing is
// written).
func reefTable(x eval.Context) (value.Value, error) {
	c, _ := x.Reef().Chain()
	cols := []string{"name", "constraint", "version", "hash8", "provider", "scope"}
	lock, err := x.Reef().Lock(c)
	if err != nil {
		return nil, err
	}
	if lock == nil {
		lock = reef.NewLock()
	}
	r := x.Reef().Resolver()
	var rows [][]value.Value
	for _, n := range c.Names() {
		d, _, err := c.Decide(n)
		var b reef.Binding
		if err == nil {
			b, err = r.Resolve(d, x.Reef().Env(c), lock, reef.Interactive, false)
		}
		if err != nil {
			code := reef.CodeProvider
			var re *reef.Error
			if errors.As(err, &re) {
				code = re.Code
			}
			rows = append(rows, []value.Value{value.Str(n), orNull(d.Constraint.Text), value.Nil, value.Nil, value.Nil, value.Str("unresolved: " + code)})
			continue
		}
		rows = append(rows, []value.Value{value.Str(n), value.Str(b.Constraint), value.Str(b.Version), value.Str(b.Hash8()), value.Str(b.Provider), value.Str(b.Scope)})
	}
	return value.TableFromRows(cols, rows), nil
}

// reefAdd edits the manifest `reef add` targets: cwd's .reef.toml (even
// malformed: that is reported, never routed around), else the nearest
// ancestor's, else a new one in cwd; then locks the tool afresh.
func reefAdd(x eval.Context, spec string) (value.Value, error) {
	tool, version, err := reefSpec(spec)
	if err != nil {
		return nil, err
	}
	target := filepath.Join(x.Dir(), ".reef.toml")
	var data []byte
	if _, err := x.Host().Stat(x.Ctx(), target); err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, eval.HostError(err)
		}
		if near := nearestNative(x); near != "" {
			target = near
		}
	}
	// The person's trust decides whether Reef may write here: never into
	// a directory whose project files are untrusted or changed.
	before := reef.ReadProject(x.Reef().FS(), filepath.Dir(target))
	if !before.Empty() {
		state := reef.Untrusted
		if tr := x.Reef().Trust(); tr != nil {
			state = tr.Check(before.Dir, before.Digest)
		}
		if state != reef.Trusted {
			return nil, eval.ReefError(&reef.Error{Code: reef.CodeUntrusted, Tool: tool,
				Msg:  fmt.Sprintf("%s: its project files are %s, so Reef writes nothing there", before.Dir, state),
				Hint: "run 'shoal trust' in that directory first"})
		}
	}
	if fi, err := x.Host().Stat(x.Ctx(), target); err == nil {
		if fi.Size() > reef.MaxManifestBytes {
			return nil, eval.ReefError(&reef.Error{Code: reef.CodeProvider, Msg: fmt.Sprintf("parsing manifest %s: larger than %d bytes", target, reef.MaxManifestBytes)})
		}
		if data, err = x.Host().ReadFile(x.Ctx(), target); err != nil {
			return nil, eval.ReefError(&reef.Error{Code: reef.CodeProvider, Msg: fmt.Sprintf("reading manifest %s: %v", target, err)})
		}
	}
	out, err := reef.AddTool(target, data, tool, version)
	if err != nil {
		return nil, eval.ReefError(&reef.Error{Code: reef.CodeProvider, Msg: err.Error(), Hint: "fix the TOML by hand, then run `reef add` again"})
	}
	if err := x.Host().WriteFile(x.Ctx(), target, out, false); err != nil {
		return nil, eval.ReefError(&reef.Error{Code: reef.CodeProvider, Msg: fmt.Sprintf("writing manifest %s: %v", target, err)})
	}
	x.Reef().Wrote(before.Digest, before.With(".reef.toml", out))
	keys := []string{"added", "manifest", "locked"}
	vals := []value.Value{value.Str(tool + "@" + version), value.Path(target), value.Bool(false)}
	c, _ := x.Reef().Chain()
	if !c.Constrained(tool) {
		// The write changed a directory whose trust this session cannot
		// carry over (a kernel session's), so it no longer counts.
		return value.NewRecord(append(keys, "note"), append(vals, value.Str(fmt.Sprintf(
			"the constraint is written, but %s is no longer trusted as it was; run 'shoal trust' there to use it", filepath.Dir(target))))), nil
	}
	d, _, err := c.Decide(tool)
	var b reef.Binding
	var lock *reef.Lock
	if err == nil {
		if lock, err = x.Reef().Lock(c); err == nil {
			if lock == nil {
				lock = reef.NewLock()
			}
			b, err = x.Reef().Resolver().Resolve(d, x.Reef().Env(c), lock, reef.Interactive, true)
		}
	}
	if err == nil {
		err = x.Reef().Save(c, lock)
	}
	if err != nil {
		var re *reef.Error
		msg := err.Error()
		if errors.As(err, &re) {
			msg = re.Code + ": " + re.Msg
		}
		return value.NewRecord(append(keys, "note"), append(vals, value.Str("the constraint is written but the tool did not lock: "+msg))), nil
	}
	vals[2] = value.Bool(true)
	return value.NewRecord(append(keys, "version", "path"), append(vals, value.Str(b.Version), value.Path(b.Path))), nil
}

// nearestNative is the nearest ancestor .reef.toml above cwd, or "".
func nearestNative(x eval.Context) string {
	d := filepath.Dir(x.Dir())
	for range reef.MaxScopeDepth {
		p := filepath.Join(d, ".reef.toml")
		if fi, err := x.Host().Stat(x.Ctx(), p); err == nil && fi.Mode().IsRegular() {
			return p
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return ""
}

// reefLockAll is `reef lock [--refresh]`: every constrained tool resolved
// (afresh with --refresh), one row each, the lock written.
func reefLockAll(x eval.Context, refresh bool) (value.Value, error) {
	c, _ := x.Reef().Chain()
	if len(c.Scopes) == 0 && len(c.Untrusted) > 0 {
		u := c.Untrusted[0]
		return nil, eval.ReefError(&reef.Error{Code: reef.CodeUntrusted,
			Msg:  fmt.Sprintf("%s: its project files are %s, so Reef neither reads nor writes them", u.Dir, u.State),
			Hint: "run 'shoal trust' in that directory first"})
	}
	if len(c.Scopes) == 0 {
		return nil, eval.ReefError(&reef.Error{Code: reef.CodeNotFound, Msg: "no .reef.toml, mise.toml, .tool-versions or user [reef] table is in scope",
			Hint: "create one with `reef add TOOL@VERSION`"})
	}
	path := c.LockPath()
	lock, err := x.Reef().Lock(c)
	if err != nil {
		return nil, err
	}
	if lock == nil {
		lock = reef.NewLock()
	}
	r := x.Reef().Resolver()
	cols := []string{"name", "version", "hash8", "locked", "error"}
	var rows [][]value.Value
	for _, n := range c.Names() {
		d, _, err := c.Decide(n)
		var b reef.Binding
		if err == nil {
			b, err = r.Resolve(d, x.Reef().Env(c), lock, reef.Interactive, refresh)
		}
		if err != nil {
			code := reef.CodeProvider
			var re *reef.Error
			if errors.As(err, &re) {
				code = re.Code
			}
			rows = append(rows, []value.Value{value.Str(n), value.Nil, value.Nil, value.Bool(false), value.Str(code)})
			continue
		}
		rows = append(rows, []value.Value{value.Str(n), value.Str(b.Version), value.Str(b.Hash8()), value.Bool(true), value.Nil})
	}
	if path == "" {
		return value.TableFromRows(cols, rows), nil
	}
	if err := x.Reef().Save(c, lock); err != nil {
		return nil, err
	}
	return value.TableFromRows(cols, rows), nil
}

// reefDoctor is `reef doctor`: always a table, empty when all is well.
func reefDoctor(x eval.Context) (value.Value, error) {
	c, skipped := x.Reef().Diagnose()
	lock, err := x.Reef().Lock(c)
	if err != nil && (lock == nil || lock.Check(x.Reef().Env(c)) == nil) {
		return nil, err // not the lock-path refusal, which the doctor reports as rows
	}
	fs := x.Reef().Resolver().Doctor(c, x.Reef().Env(c), lock, skipped)
	for _, u := range c.Untrusted {
		fs = append(fs, reef.Finding{Check: "trust", Name: u.Dir, Status: u.State.String(), Actual: u.Notice()})
	}
	cols := []string{"check", "name", "status", "path", "hash8", "actual"}
	rows := make([][]value.Value, len(fs))
	for i, f := range fs {
		rows[i] = []value.Value{value.Str(f.Check), value.Str(f.Name), value.Str(f.Status), pathOrNull(f.Path), orNull(f.Hash8), orNull(f.Actual)}
	}
	return value.TableFromRows(cols, rows), nil
}

// reefFetch is `reef fetch TOOL`: mise installs it (the only provider
// that fetches), honouring the nearest constraint and a provider pin.
func reefFetch(x eval.Context, tool string) (value.Value, error) {
	c, _ := x.Reef().Chain()
	d, ok, err := c.Decide(tool)
	if err != nil {
		return nil, eval.ReefError(err)
	}
	constraint := "latest"
	if ok && d.Constraint.Kind != reef.Any {
		constraint = d.Constraint.String()
	}
	no := func(note string) value.Value {
		return value.NewRecord([]string{"fetched", "note"}, []value.Value{value.Bool(false), value.Str(note)})
	}
	if d.Provider != "" && d.Provider != "mise" {
		return no("the tool is pinned to provider " + d.Provider + ", which cannot fetch"), nil
	}
	mise, err := x.Host().LookPath(x.Ctx(), "mise", x.Environ())
	if err != nil {
		return no("no provider can fetch this tool (mise is not on PATH)"), nil
	}
	var res *host.Result
	x.Blocking(func() {
		res, err = x.Host().Run(x.Ctx(), &host.Spawn{Argv: []string{mise, "install", tool + "@" + constraint}, Dir: x.Dir(), Env: x.Environ(), NoSpill: true})
	})
	if err != nil {
		return nil, eval.HostError(err)
	}
	if res.SpillPath != "" {
		_ = x.Host().Remove(context.WithoutCancel(x.Ctx()), res.SpillPath, false)
	}
	if res.Status == nil || *res.Status != 0 {
		return nil, eval.ReefError(&reef.Error{Code: reef.CodeProvider, Msg: fmt.Sprintf("mise install %s@%s failed: %s", tool, constraint, eval.FirstLine(res.Stderr))})
	}
	dd := reef.Decision{Tool: tool, Constraint: reef.ParseConstraint(constraint), Provider: "mise"}
	cand, err := x.Reef().Resolver().Select(dd, x.Reef().Env(c))
	if err != nil {
		return nil, eval.ReefError(err)
	}
	return value.NewRecord([]string{"fetched", "provider", "version", "path"},
		[]value.Value{value.Bool(true), value.Str("mise"), value.Str(cand.Version.String()), value.Path(cand.Path)}), nil
}

// reefSpec splits `reef add TOOL@VERSION`.
func reefSpec(s string) (tool, version string, err error) {
	tool, version, ok := strings.Cut(s, "@")
	switch {
	case !ok:
		return "", "", value.Errorf(value.CodeArg, "reef add: expected TOOL@VERSION, got `%s` (no @)", s)
	case tool == "":
		return "", "", value.Errorf(value.CodeArg, "reef add: `%s` names no tool before @", s)
	case version == "":
		return "", "", value.Errorf(value.CodeArg, "reef add: `%s` has no version after @ (use `%s@*` for any)", s, tool)
	case strings.ContainsAny(tool, "/ \t\n") || tool == "." || tool == "..":
		return "", "", value.Errorf(value.CodeArg, "reef add: `%s` is not a tool name", tool)
	}
	return tool, version, nil
}

// orNull is s, or null when empty.
func orNull(s string) value.Value {
	if s == "" {
		return value.Nil
	}
	return value.Str(s)
}

// pathOrNull is p as a path, or null when empty.
func pathOrNull(p string) value.Value {
	if p == "" {
		return value.Nil
	}
	return value.Path(p)
}
