package eval

import (
	"runtime"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// osNamespace answers facts about the platform and the session that need
// no system call: platform, arch, cpus and the session environment.
var osNamespace = &value.Namespace{Name: "os", Members: map[string]value.Value{
	"platform": osFact("platform", func(*thread) value.Value { return value.Str(platformName()) }),
	"name":     osFact("name", func(*thread) value.Value { return value.Str(platformName()) }),
	"arch":     osFact("arch", func(*thread) value.Value { return value.Str(archName()) }),
	"cpus":     osFact("cpus", func(*thread) value.Value { return value.Int(runtime.NumCPU()) }),
	"env":      osFact("env", func(t *thread) value.Value { return envRecord(t.env) }),
}}

func osFact(name string, f func(*thread) value.Value) *value.Builtin {
	return &value.Builtin{Name: "os." + name, Fn: func(env value.Env, a value.Args) (value.Value, error) {
		if len(a.Pos) > 0 || len(a.Named) > 0 {
			return nil, errorf(codeArg, "os.%s takes no arguments", name)
		}
		t, ok := env.(*thread)
		if !ok {
			return nil, errorf(codeType, "os.%s needs an evaluation context", name)
		}
		return f(t), nil
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
