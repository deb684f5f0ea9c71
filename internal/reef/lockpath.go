package reef

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Which paths a lock may name. A lock is data a repository ships (or an
// agent that can write the project plants), so a path in it is believed
// only where the entry's provider would itself look for the tool:
//
//   - npm-local, venv: <d>/node_modules/.bin/TOOL or <d>/.venv/bin/TOOL
//     with <d> the lock's own directory or below it;
//   - mise: <mise data>/installs/TOOL/<version>/bin/TOOL;
//   - cargo: <cargo home>/bin/TOOL;
//   - system: TOOL in /usr/bin, /usr/local/bin, /bin (Env.SystemRoots)
//     or a directory of the session's PATH, which the system provider
//     would resolve anyway.
//
// Anything else (an absolute path to a binary of the writer's choosing,
// a relative or unclean path, a base name other than the tool, an
// unknown provider) is CodeLockPath, in a trusted directory too. The
// digest check then still has to match.

// CheckEntry reports whether lock entry e for tool may be used with env,
// for a lock in lockDir.
func CheckEntry(env Env, lockDir, tool string, e LockEntry) error {
	p := e.Path
	bad := func(why string) error {
		return &Error{Code: CodeLockPath, Tool: tool,
			Msg:  fmt.Sprintf("%s: the lock names %q (provider %q): %s", tool, p, e.Provider, why),
			Hint: "delete the entry (or reef.lock) and run `reef lock`; a lock may name only programs its provider would find"}
	}
	switch {
	case p == "" || !filepath.IsAbs(p) || filepath.Clean(p) != p || strings.ContainsRune(p, 0):
		return bad("not a clean absolute path")
	case tool == "" || filepath.Base(p) != tool:
		return bad("its file name is not the tool's")
	}
	dir := filepath.Dir(p)
	switch e.Provider {
	case "npm-local", "venv":
		rel := "node_modules/.bin"
		if e.Provider == "venv" {
			rel = ".venv/bin"
		}
		if !strings.HasSuffix(dir, "/"+rel) {
			return bad("not in a " + rel + " directory")
		}
		if lockDir == "" || !within(dir, filepath.Clean(lockDir)) {
			return bad("outside the directory the lock is in")
		}
		return nil
	case "cargo":
		root := env.CargoHome
		if root == "" && env.Home != "" {
			root = filepath.Join(env.Home, ".cargo")
		}
		if root == "" || p != filepath.Join(root, "bin", tool) {
			return bad("not in cargo's bin directory")
		}
		return nil
	case "mise":
		root := env.MiseDataDir
		if root == "" && env.Home != "" {
			root = filepath.Join(env.Home, ".local", "share", "mise")
		}
		if root == "" {
			return bad("no mise data directory is known")
		}
		installs := filepath.Join(root, "installs", tool)
		rel, err := filepath.Rel(installs, p)
		parts := strings.Split(rel, "/")
		if err != nil || len(parts) != 3 || parts[0] == ".." || parts[0] == "." || parts[1] != "bin" {
			return bad("not in mise's installs of the tool")
		}
		return nil
	case "system":
		roots := env.SystemRoots
		if roots == nil {
			roots = systemRoots
		}
		for _, r := range roots {
			if filepath.Clean(r) == dir {
				return nil
			}
		}
		for i, d := range env.Path {
			if i >= MaxPathDirs {
				break
			}
			if d != "" && filepath.IsAbs(d) && filepath.Clean(d) == dir {
				return nil
			}
		}
		return bad("not in a system directory or on PATH")
	}
	return bad("unknown provider")
}

// Check is CheckEntry for every entry, in name order: the first refusal.
func (l *Lock) Check(env Env) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Names() {
		if err := CheckEntry(env, l.Dir, n, l.Entries[n]); err != nil {
			return err
		}
	}
	return nil
}
