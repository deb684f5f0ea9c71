// Package sandbox confines the programs a session spawns with the
// operating system's own access control (Linux Landlock): a spawned
// program, and everything it starts in turn, can touch only the files
// beneath the roots its Rules grant and connect or bind only the TCP ports
// they list. It knows nothing of policy: a caller lowers its grants to
// Rules (see internal/policy) and asks Wrap for the argv that runs a
// program under them.
//
// Go cannot run code between fork and exec, so the confinement is applied
// by a trampoline: Wrap rewrites argv to run this very program again (the
// running executable, /proc/self/exe) with a marker argument and the
// encoded rules; RunTrampolineIfRequested, called first thing in main,
// sees the marker, restricts its own process with Landlock and then
// execs the target in place. The pid, process group, cgroup, Pdeathsig,
// environment, working directory, open descriptors (stdin, stdout,
// stderr) and terminal foreground the spawner set up all belong to that
// same process and pass to the target unchanged. A Landlock domain is
// inherited by every descendant and can only be narrowed further, so a
// confined program cannot lift it by running the trampoline again.
//
// Support (Probe) says what this machine's kernel can enforce. Without
// Rules.Hermetic a dimension the kernel cannot fully enforce is applied as
// far as it goes, or dropped where it goes nowhere, and the program runs
// (Probe and Support.Enforced tell the truth about it); with Hermetic,
// Wrap refuses with an *UnenforceableError instead.
//
// Beyond Landlock the trampoline drops every capability and, when the
// network is restricted, installs a seccomp socket filter that closes
// the ways around Landlock's TCP rules (see netfilter_linux.go and
// docs/security.md).
package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Rules is what a spawned program may touch. Paths are absolute
// directories or files; a root that does not exist when the program
// starts is skipped (it grants nothing, and a later creation of it grants
// nothing either).
type Rules struct {
	ReadOnly    []string // read + execute beneath (files and dirs)
	ReadWrite   []string // read, execute, write, create, remove, rename beneath
	ConnectTCP  []uint16 // TCP ports it may connect to; nil with RestrictNet = none
	BindTCP     []uint16 // TCP ports it may bind; nil with RestrictNet = none
	RestrictFS  bool     // false: filesystem not restricted (e.g. the owner's "/**")
	RestrictNet bool     // false: network not restricted
	Hermetic    bool     // refuse to run (typed error) when a restricted dimension cannot be enforced
}

// restricts reports whether r restricts anything at all.
func (r Rules) restricts() bool { return r.RestrictFS || r.RestrictNet }

// Support is what this machine's kernel can enforce.
type Support struct {
	ABI    int    `json:"abi"`              // Landlock ABI version; 0 when Landlock is absent or disabled
	FS     bool   `json:"fs"`               // filesystem rules are enforced (ABI >= 3: reads, writes, truncation)
	Net    bool   `json:"net"`              // TCP bind and connect rules are enforced (ABI >= 4, and the socket filter)
	Reason string `json:"reason,omitempty"` // why FS or Net is false ("" when both are true)
}

// Enforced reports, per dimension, whether r's restriction is in force
// on a machine with support s: fs when r restricts the filesystem and s
// enforces it, net likewise. A dimension r leaves unrestricted is not
// "enforced": nothing confines it. This is what Wrap applies (and what an
// attach reports as enforced).
func (s Support) Enforced(r Rules) (fs, net bool) {
	return r.RestrictFS && s.FS, r.RestrictNet && s.Net
}

// ErrUnenforceable is what every *UnenforceableError matches with
// errors.Is.
var ErrUnenforceable = errors.New("sandbox: cannot be enforced on this machine")

// UnenforceableError is Wrap's refusal of hermetic Rules that restrict a
// dimension this machine's kernel cannot enforce.
type UnenforceableError struct {
	Dimension string // "fs" or "net"
	Reason    string // from Support
}

func (e *UnenforceableError) Error() string {
	return fmt.Sprintf("sandbox: hermetic rules restrict %s, which this machine cannot enforce: %s", e.Dimension, e.Reason)
}

// Is makes errors.Is(err, ErrUnenforceable) hold.
func (e *UnenforceableError) Is(target error) bool { return target == ErrUnenforceable }

// RulesError is Wrap's refusal of Rules that cannot be applied as given:
// a relative path, more roots or ports than the bounds in limits.go, or
// an encoding too long for one argument.
type RulesError struct{ Msg string }

func (e *RulesError) Error() string { return "sandbox: bad rules: " + e.Msg }

// Wrap returns the argv that runs argv under r (the kernel binary
// re-executing itself as a trampoline that applies r and then execs
// argv), or argv unchanged when r restricts nothing. argv[0] must be the
// absolute path of the program, as the host spawns it; the result's
// argv[0] is the program to start instead.
//
// A dimension r restricts but Probe says is not fully enforced is kept
// as far as the kernel goes or dropped (see enforceable; when nothing is
// left, argv comes back unchanged); with r.Hermetic it is an
// *UnenforceableError instead, and nothing runs. In a
// program that never called RunTrampolineIfRequested it is
// ErrNoTrampoline.
//
// Wrap leaves the environment to the caller, and the trampoline then
// starts with the program's environment, which its dynamic loader (in a
// cgo build), libc and Go runtime read before any of this package's code
// runs: LD_PRELOAD would run code unconfined. A caller that passes the
// program an environment someone else chose uses Command.
func Wrap(r Rules, argv []string) ([]string, error) {
	return wrap(r, argv, false)
}

// Command is Wrap for a program with environment env: it returns the
// argv and the environment to start. When it wraps, the environment is
// hidden from the trampoline (every entry renamed with envPrefix, which
// no loader, libc or runtime acts on) and restored exactly, order and
// all, when the trampoline execs the program; otherwise argv and env come
// back unchanged.
func Command(r Rules, argv, env []string) ([]string, []string, error) {
	w, err := wrap(r, argv, true)
	if err != nil || len(w) == len(argv) {
		return w, env, err
	}
	return w, hideEnv(env), nil
}

func wrap(r Rules, argv []string, hiddenEnv bool) ([]string, error) {
	if len(argv) == 0 {
		return nil, &RulesError{Msg: "empty argv"}
	}
	if !r.restricts() {
		return argv, nil
	}
	r, err := enforceable(r, Probe())
	if err != nil {
		return nil, err
	}
	if !r.restricts() {
		return argv, nil
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	enc := encode(r, hiddenEnv)
	if len(enc) > MaxEncoded {
		return nil, &RulesError{Msg: fmt.Sprintf("encoded rules are %d bytes, more than %d", len(enc), MaxEncoded)}
	}
	if !dispatching.Load() {
		return nil, ErrNoTrampoline
	}
	self, err := selfExe()
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(argv)+4)
	out = append(out, self, TrampolineCommand, enc, "--")
	return append(out, argv...), nil
}

// envPrefix hides an environment entry from the trampoline.
const envPrefix = "SHOAL_SANDBOX_ENV_"

func hideEnv(env []string) []string {
	out := make([]string, len(env))
	for i, kv := range env {
		out[i] = envPrefix + kv
	}
	return out
}

// revealEnv undoes hideEnv, dropping any entry that was not hidden (none
// is, from Command).
func revealEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, envPrefix); ok {
			out = append(out, v)
		}
	}
	return out
}

// enforceable checks r against s: a restricted dimension s does not
// fully enforce is an error under Hermetic. Otherwise it is kept where
// the kernel can enforce part of it (Landlock ABI 1 and 2 confine reads
// and writes but not truncation; TCP rules without the socket filter
// stop plain connects and binds but not the ways around them) and
// dropped where it can enforce none of it; Support reports it as not
// enforced either way.
func enforceable(r Rules, s Support) (Rules, error) {
	if r.RestrictFS && !s.FS {
		if r.Hermetic {
			return r, &UnenforceableError{Dimension: "fs", Reason: s.Reason}
		}
		r.RestrictFS = s.ABI >= abiFSPartial
	}
	if r.RestrictNet && !s.Net {
		if r.Hermetic {
			return r, &UnenforceableError{Dimension: "net", Reason: s.Reason}
		}
		r.RestrictNet = s.ABI >= abiNet
	}
	return r, nil
}

// The Landlock ABI versions that bring what Support reports, and the
// first that enforces part of the filesystem rules.
const (
	abiFSPartial = 1 // reads, writes, creation, removal; not truncation
	abiFS        = 3 // and truncation
	abiNet       = 4 // TCP bind and connect
	abiIPC       = 6 // scoping of signals and abstract Unix sockets
)

// validate checks the bounds and that every path is absolute, and cleans
// the paths.
func (r *Rules) validate() error {
	if n := len(r.ReadOnly) + len(r.ReadWrite); n > MaxRoots {
		return &RulesError{Msg: fmt.Sprintf("%d roots, more than %d", n, MaxRoots)}
	}
	if n := len(r.ConnectTCP) + len(r.BindTCP); n > MaxPorts {
		return &RulesError{Msg: fmt.Sprintf("%d ports, more than %d", n, MaxPorts)}
	}
	clean := func(paths []string) ([]string, error) {
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				return nil, &RulesError{Msg: fmt.Sprintf("path %q is not absolute", p)}
			}
			if slices.Contains([]byte(p), 0) {
				return nil, &RulesError{Msg: fmt.Sprintf("path %q contains a NUL byte", p)}
			}
			out = append(out, filepath.Clean(p))
		}
		return out, nil
	}
	var err error
	if r.ReadOnly, err = clean(r.ReadOnly); err != nil {
		return err
	}
	r.ReadWrite, err = clean(r.ReadWrite)
	return err
}
