package kernel

import (
	"context"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/contain"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/proto"
)

// MaxReefTools bounds the tool bindings one session remembers.
const MaxReefTools = 512

// reefBinding is one resolved tool as session.reef reports it. A tool a
// manifest constrains (constrained) carries its effective constraint, the
// digest prefix of its binary and, when Reef refuses it, the reef_* code
// (its scope is then "unresolved: CODE" and its path empty); an
// unconstrained one is a PATH lookup the session made, scoped to the
// directory it was made in.
type reefBinding = proto.ReefBinding

// toolTable is a session's snapshot of the programs it resolved through
// the system provider (PATH lookup), newest resolution winning.
type toolTable struct {
	mu    sync.Mutex
	tools map[string]reefBinding
}

// reefHost is the session's host gate, recording every successful program
// lookup so session.reef can answer without a subprocess.
type reefHost struct {
	host.Host
	table *toolTable
	dir   func() string  // the scope a lookup binds in
	procs *contain.Scope // every process the session's commands start

	langTasks *langTaskHook // the session's eval.TaskHook

	gate     *sessionGate // the session's Leash gate (grants.go)
	withheld []string     // kernel variables left out of its environment
}

// CloseLive closes the watches and tails the session's host has running,
// when the session closes.
func (h *reefHost) CloseLive() {
	if o, ok := h.Host.(interface{ CloseLive() }); ok {
		o.CloseLive()
	}
}

// LookPath resolves name and records the binding.
func (h *reefHost) LookPath(ctx context.Context, name string, env []string) (string, error) {
	p, err := h.Host.LookPath(ctx, name, env)
	if err == nil && h.dir != nil && name != "" && !strings.ContainsRune(name, '/') {
		h.table.record(name, p, h.dir())
	}
	return p, err
}

func (t *toolTable) record(name, path, scope string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tools == nil {
		t.tools = map[string]reefBinding{}
	}
	if old, ok := t.tools[name]; ok && old.Path == path && old.Scope == scope {
		return
	}
	if _, ok := t.tools[name]; !ok && len(t.tools) >= MaxReefTools {
		return
	}
	t.tools[name] = reefBinding{Tool: name, Version: versionFromPath(name, path), Provider: "system", Path: path, Scope: scope}
}

// list returns the bindings sorted by tool name.
func (t *toolTable) list() []reefBinding {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]reefBinding, 0, len(t.tools))
	for _, b := range t.tools {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out
}

// versionRE finds a dotted version in a file or directory name.
// Compiled on first use, not at every start of the kernel (or of its
// sandbox trampoline, which is the kernel binary).
var versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(\d+(?:\.\d+)+)`) })

// versionFromPath reads a version from where a program lives when that is
// cheap and unambiguous: a symlink whose target names one (python3 →
// python3.12) or a versioned install directory (/opt/jq-1.7.1/bin/jq). It
// never runs the program; nil means unknown.
func versionFromPath(name, path string) *string {
	cands := []string{}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		cands = append(cands, filepath.Base(target))
	}
	cands = append(cands, filepath.Base(filepath.Dir(filepath.Dir(path))))
	prefixes := []string{strings.TrimRight(name, "0123456789"), name}
	for _, c := range cands {
		for _, pre := range prefixes {
			rest, ok := strings.CutPrefix(c, pre)
			if !ok || pre == "" {
				continue
			}
			rest = strings.TrimLeft(rest, "-_@")
			if m := versionRE().FindString(rest); m != "" && strings.HasPrefix(rest, m) {
				return &m
			}
		}
	}
	return nil
}
