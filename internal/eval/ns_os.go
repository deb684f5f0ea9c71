package eval

import (
	"runtime"
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// osNamespace answers facts about the platform, the machine and the
// session. Every member is a nullary function. platform, arch, cpus and env
// need no system call (the build target and the session's own state);
// pid, hostname, uptime and, when the session environment names no user,
// username read Host.Facts, which asks sys_read.
var osNamespace = &value.Namespace{Name: "os", Members: map[string]value.Value{
	"platform": osFact("platform", func(*thread) (value.Value, error) { return value.Str(platformName()), nil }),
	"name":     osFact("name", func(*thread) (value.Value, error) { return value.Str(platformName()), nil }),
	"arch":     osFact("arch", func(*thread) (value.Value, error) { return value.Str(archName()), nil }),
	"cpus":     osFact("cpus", func(*thread) (value.Value, error) { return value.Int(max(runtime.NumCPU(), 1)), nil }),
	"env":      osFact("env", func(t *thread) (value.Value, error) { return envRecord(t.env), nil }),
	"pid":      osHostFact("pid", func(f host.Facts) value.Value { return value.Int(f.Pid) }),
	"hostname": osHostFact("hostname", func(f host.Facts) value.Value {
		return value.Str(orUnknown(f.Hostname))
	}),
	"uptime": osHostFact("uptime", func(f host.Facts) value.Value {
		if !f.UptimeKnown {
			return value.Nil
		}
		return value.Duration(f.Uptime)
	}),
	"username": osFact("username", osUsername),
}}

// osHostFact is a member answered from the host's system facts.
func osHostFact(name string, pick func(host.Facts) value.Value) *value.Builtin {
	return osFact(name, func(t *thread) (value.Value, error) {
		f, err := t.host.Facts(t.ctx, name)
		if err != nil {
			return nil, hostError(err)
		}
		return pick(f), nil
	})
}

// osUsername is the session's USER, LOGNAME or USERNAME, else the host's
// user database entry, else "unknown".
func osUsername(t *thread) (value.Value, error) {
	for _, k := range [...]string{"USER", "LOGNAME", "USERNAME"} {
		if v, ok := t.getenv(k); ok && v != "" {
			return value.Str(v), nil
		}
	}
	f, err := t.host.Facts(t.ctx, "username")
	if err != nil {
		return nil, hostError(err)
	}
	return value.Str(orUnknown(f.Username)), nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func osFact(name string, f func(*thread) (value.Value, error)) *value.Builtin {
	return &value.Builtin{Name: "os." + name, Fn: func(env value.Env, a value.Args) (value.Value, error) {
		if len(a.Pos) > 0 || len(a.Named) > 0 {
			return nil, errorf(codeArg, "os.%s takes no arguments", name)
		}
		t, ok := env.(*thread)
		if !ok {
			return nil, errorf(codeType, "os.%s needs an evaluation context", name)
		}
		return f(t)
	}}
}

func platformName() string {
	if runtime.GOOS == "darwin" {
		return "macos"
	}
	return runtime.GOOS
}

func archName() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	}
	return runtime.GOARCH
}

// envRecord renders an environment as an ordered record.
func envRecord(env []string) *value.Record {
	keys := make([]string, 0, len(env))
	vals := make([]value.Value, 0, len(env))
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		keys = append(keys, k)
		vals = append(vals, value.Str(v))
	}
	return value.NewRecord(keys, vals)
}
