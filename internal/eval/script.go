package eval

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// scriptRunners maps script extensions to the interpreter that runs them.
var scriptRunners = map[string]string{
	".py": "python3", ".sh": "sh", ".bash": "bash", ".js": "node", ".mjs": "node",
	".rb": "ruby", ".pl": "perl", ".lua": "lua", ".ts": "deno", ".php": "php",
}

// effRunCmd declares `run TARGET ARGS…` (and effRunCall `run(target,
// args…)`): what runTarget below will do with a target known statically;
// a computed target is a dynamic spawn.
func effRunCmd(d *leash.Deriver) {
	args := d.Command().Args
	if len(args) == 0 {
		return
	}
	target, ok := d.Word(args[0])
	if !ok {
		d.DynamicSpawn("run of a target computed at run time")
		return
	}
	effRunTarget(d, target, args[1:])
}

func effRunCall(d *leash.Deriver) {
	args := d.Args()
	if len(args) == 0 {
		return
	}
	target, ok := d.ExprText(args[0].Value)
	if !ok {
		d.DynamicSpawn("run of a target computed at run time")
		return
	}
	effRunTarget(d, target, d.ArgWords(args[1:]))
}

// effRunTarget mirrors runTarget's choice: a plain name is a program on
// PATH (never a builtin), a .shl file is evaluated here (opaque), a known
// script extension runs its runner on the file, any other path is read for
// a #! line and executed.
func effRunTarget(d *leash.Deriver, s string, rest []*syntax.CmdArg) {
	ext := filepath.Ext(s)
	runner, knownExt := scriptRunners[ext]
	switch {
	case !strings.ContainsRune(s, '/') && ext != ".shl" && !knownExt:
		d.External(s, rest)
	case ext == ".shl":
		d.PathText(s, host.FSRead, leash.Reversible)
		d.Opaque("run evaluates the Shoal file " + s + ", which is not analysed")
	case knownExt:
		d.PathText(s, host.FSRead, leash.Reversible)
		file := s
		if abs, ok := d.Resolve(s); ok {
			file = abs
		}
		d.External(runner, append([]*syntax.CmdArg{{Kind: syntax.ArgWord, Text: file}}, rest...))
	default:
		abs, ok := d.Resolve(s)
		if !ok {
			abs = s
		}
		d.PathText(s, host.FSRead, leash.Reversible)
		d.External(abs, rest)
	}
}

// runTarget implements `run`: a path or script name runs through its
// runner (Shoal files in a fresh scope); a plain name runs that program.
func (t *thread) runTarget(target value.Value, args []string, m mode) (value.Value, error) {
	s, err := pathText(target)
	if err != nil {
		return nil, err
	}
	ext := filepath.Ext(s)
	_, knownExt := scriptRunners[ext]
	reefRun, reefExt := t.reefRunner(ext)
	knownExt = knownExt || reefExt
	if !strings.ContainsRune(s, '/') && ext != ".shl" && !knownExt {
		prog, err := t.host.LookPath(t.ctx, s, t.env)
		if err != nil {
			if gateStop(err) {
				return nil, hostError(err)
			}
			return nil, errorf(codeNotFound, "command not found: %s", s)
		}
		return t.runExternal(s, prog, args, nil, m)
	}
	p := t.abs(s)
	if ext == ".shl" {
		return t.runScriptFile(p, args)
	}
	if reefExt {
		// A manifest in scope: the merged runner table decides, and the
		// runner is itself a command head Reef may constrain.
		if _, err := t.host.Stat(t.ctx, p); err != nil {
			return nil, hostError(err)
		}
		prog, view, reefed, err := t.reefResolveHead(reefRun.Tool)
		if !reefed {
			prog, err = t.host.LookPath(t.ctx, reefRun.Tool, t.env)
			if err != nil {
				if gateStop(err) {
					return nil, hostError(err)
				}
				return nil, errorf(value.CodeRunnerNotFound, "no %s found to run %s", reefRun.Tool, s)
			}
		} else if err != nil {
			return nil, err
		}
		argv := append(append(append([]string(nil), reefRun.Args...), p), args...)
		return t.runExternal(reefRun.Tool, prog, argv, &redirects{path: view}, m)
	}
	if runner, ok := scriptRunners[ext]; ok {
		if _, err := t.host.Stat(t.ctx, p); err != nil {
			return nil, hostError(err)
		}
		prog, err := t.host.LookPath(t.ctx, runner, t.env)
		if err != nil {
			if gateStop(err) {
				return nil, hostError(err)
			}
			return nil, errorf(value.CodeRunnerNotFound, "no %s found to run %s", runner, s)
		}
		return t.runExternal(runner, prog, append([]string{p}, args...), nil, m)
	}
	data, err := t.host.ReadFile(t.ctx, p)
	if gateStop(err) {
		return nil, hostError(err)
	}
	if err == nil && bytes.HasPrefix(data, []byte("#!")) {
		return t.runExternal(s, p, args, nil, m)
	}
	return nil, errorf(value.CodeRunnerNotFound, "no runner for %s", s).
		WithHint("use a known extension (.shl, .py, .sh, ...) or a #! line")
}

// parseFile reads and parses a Shoal source file.
func (t *thread) parseFile(p string, isBound func(string) bool) (*syntax.Program, error) {
	data, err := t.host.ReadFile(t.ctx, p)
	if err != nil {
		return nil, hostError(err)
	}
	prog, err := syntax.Parse(string(data), syntax.ParseOptions{IsBound: isBound})
	if err != nil {
		if pe, ok := err.(*syntax.Error); ok {
			return nil, errorf(value.CodeParse, "%s: %s", filepath.Base(p), pe.Msg).WithHint(pe.Hint)
		}
		return nil, err
	}
	return prog, nil
}

// runScriptFile runs a Shoal script in a fresh root scope on a child
// thread: its bindings do not leak into the caller. It sees `args` and
// `script`.
func (t *thread) runScriptFile(p string, args []string) (value.Value, error) {
	prog, err := t.parseFile(p, nil)
	if err != nil {
		return nil, err
	}
	c := t.child()
	c.fnDepth = 0
	root := newScope(nil)
	items := make([]value.Value, len(args))
	for i, a := range args {
		items[i] = value.Str(a)
	}
	root.declare("args", value.NewList(items), false)
	root.declare("script", value.Path(p), false)
	c.root = root
	return c.runProgram(prog, root)
}

// sourceFile evaluates a Shoal file in scope sc, so its declarations stay
// visible afterwards.
func (t *thread) sourceFile(p string, sc *scope) (value.Value, error) {
	prog, err := t.parseFile(p, func(name string) bool { return sc.lookup(name) != nil })
	if err != nil {
		return nil, err
	}
	v, err := t.evalStmts(prog.Stmts, sc, modeFinal)
	if err != nil {
		if f, ok := err.(*flow); ok && f.kind == flowReturn {
			return f.val, nil
		}
		return nil, err
	}
	return v, nil
}
