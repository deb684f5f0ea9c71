package main

// The prompt's facts that cost more than a file read: git_status (one
// bounded git run per prompt), cmd_duration, principal, leash and reef.
// Each is gathered once per prompt, only when the prompt's formats name
// its module, never per keystroke.

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/prompt"
	"github.com/shoalgo/shoal/internal/userconfig"
)

// Bounds on the git_status run.
const (
	// gitStatusTimeout bounds one run: a huge repository shows no marks
	// rather than stall the prompt.
	gitStatusTimeout = 300 * time.Millisecond
	// gitStatusMaxBytes bounds the output read; the rest is discarded.
	gitStatusMaxBytes = 256 << 10
	// gitConfigMaxBytes bounds the repository config read for the check.
	gitConfigMaxBytes = 64 << 10
)

// usesModule reports whether any of the prompt's formats names module.
func usesModule(p *userconfig.Prompt, module string) bool {
	for _, f := range []string{p.Format.Left, p.Format.Right, p.Format.Transient} {
		if strings.Contains(f, "$"+module) || strings.Contains(f, "${"+module+"}") {
			return true
		}
	}
	return false
}

// gitStatus runs `git status --porcelain=v2 --branch` in dir, bounded in
// time and output. The repository is a hostile party: git runs with its
// fsmonitor (a program the repository's config may name), optional locks
// and the untracked cache off, no pager and no prompt; and a repository
// whose own config names programs git status may run (filter drivers,
// included config files, an fsmonitor hook) is not asked at all (nil).
// git missing, a timeout or a failure is nil too: no marks.
func gitStatus(ctx context.Context, dir string) *prompt.GitStatus {
	gitDir := findGitDir(dir)
	if gitDir == "" || repoConfigRunsPrograms(filepath.Join(gitDir, "config")) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, gitStatusTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "--no-optional-locks",
		"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false", "-c", "core.hooksPath=/dev/null",
		"-c", "status.submoduleSummary=false", "-c", "diff.ignoreSubmodules=all",
		"status", "--porcelain=v2", "--branch", "--ignore-submodules=all", "--untracked-files=normal")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat", "LC_ALL=C")
	cmd.Stdin = nil
	var out bytes.Buffer
	cmd.Stdout = &limitWriter{w: &out, n: gitStatusMaxBytes}
	cmd.WaitDelay = 100 * time.Millisecond
	if err := cmd.Run(); err != nil {
		return nil
	}
	g := prompt.ParseGitStatus(out.Bytes())
	return &g
}

// findGitDir is the .git directory of the repository holding dir (a
// worktree's `gitdir:` followed), "" outside one; at most
// prompt.MaxWalkUp directories up.
func findGitDir(dir string) string {
	dir = filepath.Clean(dir)
	for range prompt.MaxWalkUp {
		dotgit := filepath.Join(dir, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			if fi.IsDir() {
				return dotgit
			}
			data, err := readSmallFile(dotgit, prompt.MaxHeadBytes)
			if err != nil {
				return ""
			}
			gd, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !ok {
				return ""
			}
			gd = strings.TrimSpace(gd)
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(dir, gd)
			}
			return gd
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// repoConfigRunsPrograms reports whether a repository's own config names
// something git status could run or read further: a filter driver, an
// include, an fsmonitor. An unreadable or oversized config counts as yes.
func repoConfigRunsPrograms(path string) bool {
	data, err := readSmallFile(path, gitConfigMaxBytes+1)
	if os.IsNotExist(err) {
		return false
	}
	if err != nil || len(data) > gitConfigMaxBytes {
		return true
	}
	s := strings.ToLower(string(data))
	for _, w := range []string{"[filter", "[include", "fsmonitor", "[diff", "[submodule"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// limitWriter keeps the first n bytes and discards the rest (without
// failing the writer, so git is not killed by a broken pipe).
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// reefTools is the reef module's text: the tools Reef constrains in dir
// with their versions (or constraints), "" outside a project.
func reefTools(ctx context.Context, in *eval.Interp, dir string) string {
	rep := in.ReefBindings(ctx, dir, in.Environ())
	var parts []string
	for _, b := range rep.Bindings {
		v := b.Constraint
		if b.Version != nil {
			v = *b.Version
		}
		if v != "" {
			parts = append(parts, b.Tool+"@"+v)
		} else {
			parts = append(parts, b.Tool)
		}
		if len(parts) == 8 {
			parts = append(parts, "…")
			break
		}
	}
	return strings.Join(parts, " ")
}

// remotePromptFacts are the principal and leash modules' facts for a
// kernel session: the principal it attached as (an agent when a token
// named it), and its policy profile ("owner" for the kernel owner
// without one), marked "enforced" when the OS sandbox confines it.
func remotePromptFacts(r *remoteSession) (principal string, agent bool, leash string) {
	if r == nil || r.att == nil {
		return "", false, ""
	}
	a := r.att
	leash = a.Caps.Profile
	if leash == "" {
		leash = "owner"
	}
	if a.Caps.Enforced || a.CapsEnforced {
		leash += " enforced"
	}
	return a.Principal, r.target.Token != "" || strings.HasPrefix(a.Principal, "agent:"), leash
}
