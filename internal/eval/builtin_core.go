package eval

import (
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// The core builtins: text, environment, process and script execution.
// The file system commands (ls, cp, rm, ...) are internal/lib/fs's, the
// navigation commands (pwd, cd, pushd, ...) internal/lib/nav's.
func registerBuiltinCore(p *Part) {
	p.Builtin(&Builtin{Name: "echo", Help: Help{Summary: "print its arguments as text, separated by spaces", Usage: "echo VALUE...", Example: "echo hello world\necho \"total: {1 + 2}\""}, Run: runEcho, TextFlags: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "env", Help: Help{Summary: "the environment as a record, or one variable's value", Usage: "env [NAME]", Example: "env\nenv PATH"}, Run: runEnv,
		Effects: func(d *leash.Deriver) { d.Add(leash.Effect{Kind: host.EnvRead, Name: "*"}, leash.Reversible) }})
	p.Builtin(&Builtin{Name: "which", Help: Help{Summary: "where a command comes from: builtin, function, alias or program on PATH", Usage: "which NAME", Example: "which ls\nwhich -a python3"}, Run: runWhich, Flags: []leash.FlagSpec{flagAll}, Effects: effWhich})
	p.Builtin(&Builtin{Name: "run", Help: Help{Summary: "run a script file or a program with arguments, its flags passed untouched", Usage: "run TARGET [ARG...]", Example: "run ./build.shl release\nrun git --version"}, Run: runRun, Bare: true, Quiet: true, Verbatim: true,
		Effects: effRunCmd})
	p.Builtin(&Builtin{Name: "source", Help: Help{Summary: "evaluate a file in the current scope, as if typed here", Usage: "source PATH", Example: "source ~/.config/shoal/aliases.shl"}, Run: runSource, Bare: true, Quiet: true,
		Effects: func(d *leash.Deriver) { EffReads(d); d.Opaque("source runs another file, which is not analysed") }})
	p.Builtin(&Builtin{Name: "exit", Help: Help{Summary: "leave the session (or end a task) with a status", Usage: "exit [STATUS]", Example: "exit\nexit 3"}, Run: runExit, Bare: true, Quiet: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "quit", Help: Help{Summary: "leave the session with a status (as exit)", Usage: "quit [STATUS]", Example: "quit"}, Run: runExit, Bare: true, Quiet: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "sleep", Help: Help{Summary: "wait for a duration", Usage: "sleep DURATION", Example: "sleep 1s\nsleep 500ms"}, Run: runSleep, Quiet: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "jobs", Help: Help{Summary: "the session's background tasks and stopped jobs, as a table", Usage: "jobs", Example: "sleep 20s &\njobs"}, Run: runJobs, Bare: true, Effects: EffNone})
	p.Builtin(&Builtin{Name: "now", Help: Help{Summary: "the current date and time", Usage: "now", Example: "now\nnow.hour()"}, Effects: effClock, Run: func(c *BuiltinCall) (value.Value, error) {
		return c.t.now()
	}, Bare: true})
	p.Builtin(&Builtin{Name: "today", Help: Help{Summary: "today's date at midnight", Usage: "today", Example: "today"}, Effects: effClock, Run: func(c *BuiltinCall) (value.Value, error) {
		return c.t.today()
	}, Bare: true})
}

// echoText joins values with spaces: strings and paths raw, null empty,
// everything else inline.
func echoText(vals []value.Value) string {
	var b strings.Builder
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch x := v.(type) {
		case value.Str:
			b.WriteString(string(x))
		case value.Path:
			b.WriteString(string(x))
		case value.Null:
		default:
			b.WriteString(value.Inline(v))
		}
	}
	return b.String()
}

func runEcho(c *BuiltinCall) (value.Value, error) {
	vals := c.Args
	if len(c.Flags) > 0 {
		// echo has no options: flags are echoed as written.
		vals = nil
		for _, f := range c.Flags {
			if f.Short {
				vals = append(vals, value.Str("-"+f.Name))
			} else if f.Value != nil {
				s, _ := argText(f.Value)
				vals = append(vals, value.Str("--"+f.Name+"="+s))
			} else {
				vals = append(vals, value.Str("--"+f.Name))
			}
		}
		vals = append(vals, c.Args...)
	}
	return value.Str(echoText(vals)), nil
}

func runEnv(c *BuiltinCall) (value.Value, error) {
	switch len(c.Args) {
	case 0:
		return EnvRecord(c.Environ()), nil
	case 1:
		name, err := argText(c.Args[0])
		if err != nil {
			return nil, err
		}
		if v, ok := c.Getenv(name); ok {
			return value.Str(v), nil
		}
		return value.Nil, nil
	}
	return nil, errorf(codeArg, "env takes at most one name, got %d", len(c.Args))
}

func runWhich(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) != 1 {
		return nil, errorf(codeArg, "which takes exactly one name, got %d", len(c.Args))
	}
	name, err := argText(c.Args[0])
	if err != nil {
		return nil, err
	}
	if c.t.reg().IsBuiltin(name) && !c.Flag("all") {
		return value.NewRecord([]string{"name", "path", "scope"},
			[]value.Value{value.Str(name), value.Nil, value.Str("builtin")}), nil
	}
	if c.Flag("all") {
		// Every provider's candidates; no lock or conflict decision.
		return c.t.reefWhichAll(name), nil
	}
	if chain, _ := c.t.reefChain(); chain.Constrained(name) {
		return c.t.reefWhich(name, chain), nil
	}
	p, err := c.Host().LookPath(c.Ctx(), name, c.Environ())
	if err != nil {
		if gateStop(err) {
			return nil, hostError(err)
		}
		return value.Nil, nil
	}
	return value.NewRecord(
		[]string{"name", "scope", "constraint", "version", "path", "hash8", "provider", "chain"},
		[]value.Value{value.Str(name), value.Str(ambientScope(p)), value.Str("*"), value.Str("unknown"), value.Path(p),
			value.Nil, value.Str("system"), reefChainTable(nil)}), nil
}

func runRun(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) == 0 {
		return nil, errorf(codeArg, "run needs a target")
	}
	args, err := argTexts(c.Args[1:])
	if err != nil {
		return nil, err
	}
	return c.t.runTarget(c.Args[0], args, c.mode)
}

func runSource(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) == 0 {
		return nil, errorf(codeArg, "source needs a file")
	}
	p, err := pathText(c.Args[0])
	if err != nil {
		return nil, errorf(codeArg, "source: %s", err.(*value.Error).Msg)
	}
	sc := c.sc
	if sc == nil {
		sc = c.t.root
	}
	return c.t.sourceFile(c.Abs(p), sc)
}

func runExit(c *BuiltinCall) (value.Value, error) {
	code := 0
	if len(c.Args) > 0 {
		v, err := value.Coerce(c.Args[0], "int", nil)
		if err != nil {
			return nil, errorf(codeArg, "exit status must be an int")
		}
		n, ok := v.(value.Int)
		if !ok {
			return nil, errorf(codeArg, "exit status must be an int")
		}
		code = int(max(min(int64(n), 1<<31-1), -1<<31))
	}
	if c.t.task == nil {
		// In a background task exit ends the task, not the session.
		c.t.in.exitCode = &code
	}
	return nil, exitSignal
}

func runSleep(c *BuiltinCall) (value.Value, error) {
	if len(c.Args) != 1 {
		return nil, errorf(codeArg, "sleep takes one duration")
	}
	var d time.Duration
	switch x := c.Args[0].(type) {
	case value.Duration:
		d = time.Duration(x)
	case value.Int:
		d = time.Duration(x) * time.Second
	default:
		v, err := value.Coerce(x, "duration", nil)
		if err != nil {
			return nil, errorf(codeType, "sleep expects a duration, got %s", value.TypeName(x))
		}
		dv, ok := v.(value.Duration)
		if !ok {
			return nil, errorf(codeType, "sleep expects a duration, got %s", value.TypeName(x))
		}
		d = time.Duration(dv)
	}
	if d < 0 {
		return nil, errorf(codeType, "sleep duration must not be negative")
	}
	return value.Nil, c.t.sleep(d)
}
