// Package sys is the os namespace: facts about the platform, the machine
// and the session (os.platform, os.arch, os.cpus, os.pid, os.hostname,
// os.uptime, os.username, os.env). Every member is a nullary function;
// the machine's facts are read through the session's host gate
// (host.Host.Facts, which asks sys_read of the fact's name), the
// environment from eval's Context. Its entries are one registry Part.
package sys

import (
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// Register adds the os namespace to p.
func Register(p *eval.Part) { p.Namespace(osNamespace()) }

// Part is sys's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}

// osNamespace answers facts about the platform, the machine and the
// session. Every member is a nullary function. env is the session's own
// state; every other member is a fact about the machine or the host
// process, read through Host.Facts, which asks sys_read with the fact's
// name (os.name is the platform fact; username asks only when the session
// environment names no user).
func osNamespace() *eval.Namespace {
	// fact is a member answered from a system fact the host reads (asking
	// sys_read of the fact's name).
	fact := func(name, fact, summary string, v value.Value) *eval.Member {
		return &eval.Member{Name: name, Value: v, Effects: func(d *leash.Deriver) { d.SysRead(fact) },
			Help: eval.Help{Summary: summary, Usage: "os." + name, Example: "os." + name}}
	}
	platform := func(f host.Facts) value.Value { return value.Str(platformName(f.OS)) }
	return &eval.Namespace{Name: "os",
		Help: eval.Help{Summary: "facts about the platform, the machine and the session", Usage: "os.MEMBER", Example: "os.platform"},
		Members: []*eval.Member{
			fact("platform", "platform", "the operating system: linux, macos, windows, ...", osHostFact("platform", platform)),
			fact("name", "platform", "the same as os.platform", osFactAs("name", "platform", platform)),
			fact("arch", "arch", "the processor architecture: x86_64, aarch64, ...", osHostFact("arch", func(f host.Facts) value.Value { return value.Str(archName(f.Arch)) })),
			fact("cpus", "cpus", "how many processors the machine has", osHostFact("cpus", func(f host.Facts) value.Value { return value.Int(max(f.CPUs, 1)) })),
			fact("pid", "pid", "the process id of the shell", osHostFact("pid", func(f host.Facts) value.Value { return value.Int(f.Pid) })),
			fact("hostname", "hostname", "the machine's host name", osHostFact("hostname", func(f host.Facts) value.Value {
				return value.Str(orUnknown(f.Hostname))
			})),
			fact("uptime", "uptime", "how long the machine has been up (null when unknown)", osHostFact("uptime", func(f host.Facts) value.Value {
				if !f.UptimeKnown {
					return value.Nil
				}
				return value.Duration(f.Uptime)
			})),
			// The session's USER first; the host's user database only
			// when it names none (plans count the read either way).
			fact("username", "username", "the user the session runs as", osFact("username", osUsername)),
			// env is the session's own environment. Read as a field, plans
			// have counted it as reading every variable.
			{Name: "env", Value: osFact("env", func(c eval.Context) (value.Value, error) { return eval.EnvRecord(c.Environ()), nil }),
				Effects: func(d *leash.Deriver) {
					if d.Field() {
						d.Add(leash.Effect{Kind: host.EnvRead, Name: "*"}, leash.Reversible)
					}
				},
				Help: eval.Help{Summary: "the session's environment as a record", Usage: "os.env", Example: "os.env.HOME"}},
		}}
}

// osHostFact is a member answered from the host's system fact of the same
// name.
func osHostFact(name string, pick func(host.Facts) value.Value) *value.Builtin {
	return osFactAs(name, name, pick)
}

// osFactAs is the member name answered from the host's system fact fact.
func osFactAs(name, fact string, pick func(host.Facts) value.Value) *value.Builtin {
	return osFact(name, func(c eval.Context) (value.Value, error) {
		f, err := c.Host().Facts(c.Ctx(), fact)
		if err != nil {
			return nil, eval.HostError(err)
		}
		return pick(f), nil
	})
}

// osUsername is the session's USER, LOGNAME or USERNAME, else the host's
// user database entry, else "unknown".
func osUsername(c eval.Context) (value.Value, error) {
	for _, k := range [...]string{"USER", "LOGNAME", "USERNAME"} {
		if v, ok := c.Getenv(k); ok && v != "" {
			return value.Str(v), nil
		}
	}
	f, err := c.Host().Facts(c.Ctx(), "username")
	if err != nil {
		return nil, eval.HostError(err)
	}
	return value.Str(orUnknown(f.Username)), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// osFact is the member os.name answered by f in the calling evaluation.
func osFact(name string, f func(eval.Context) (value.Value, error)) *value.Builtin {
	return &value.Builtin{Name: "os." + name, Fn: func(env value.Env, a value.Args) (value.Value, error) {
		if len(a.Pos) > 0 || len(a.Named) > 0 {
			return nil, value.Errorf(value.CodeArg, "os.%s takes no arguments", name)
		}
		c, ok := eval.ContextOf(env)
		if !ok {
			return nil, value.Errorf(value.CodeType, "os.%s needs an evaluation context", name)
		}
		return f(c)
	}}
}

// platformName is the language's name for a Go GOOS.
func platformName(goos string) string {
	if goos == "darwin" {
		return "macos"
	}
	return goos
}

// archName is the language's name for a Go GOARCH.
func archName(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return goarch
}
