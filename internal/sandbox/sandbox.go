// Package sandbox confines the programs a session spawns with the
// operating system's own access control (Linux Landlock): a spawned
// program, and everything it starts in turn, can touch only the files
// beneath the roots its Rules grant and connect or bind only the TCP ports
// they list. It knows nothing of policy: a caller lowers its grants to
// Rules (see internal/policy), Prepares them, and forks the program from
// a thread the Confinement has confined (Confinement.Run).
//
// Go cannot run code between fork and exec, but it need not: every
// restriction the sandbox applies is a property of one thread when it is
// applied without the all-threads flags (capset, prctl(PR_SET_NO_NEW_PRIVS),
// seccomp(2) without SECCOMP_FILTER_FLAG_TSYNC, landlock_restrict_self
// without LANDLOCK_RESTRICT_SELF_TSYNC), and a child forked by a thread
// starts with that thread's credentials, no_new_privs, seccomp filters and
// Landlock domain. So Run takes an OS thread of its own (a goroutine locked
// to it and never unlocked, so that the Go runtime destroys the thread when
// the goroutine returns and never schedules anything else on it), confines
// that thread, and calls the caller's function on it, which forks the
// program there (package contain does, keeping the thread until the child
// is reaped, since Pdeathsig fires when the forking thread ends). The
// program execs already confined; the rest of this process is untouched
// (see thread_linux.go for why the runtime never seeds another thread from
// a confined one). The pid, process group, cgroup, Pdeathsig, environment,
// working directory, descriptors and terminal foreground are the spawner's
// as for any child. A Landlock domain is inherited by every descendant and
// can only be narrowed further.
//
// Support (Probe) says what this machine's kernel can enforce. Without
// Rules.Hermetic a dimension the kernel cannot fully enforce is applied as
// far as it goes, or dropped where it goes nowhere, and the program runs
// (Probe and Support.Enforced tell the truth about it); with Hermetic,
// Prepare refuses with an *UnenforceableError instead.
//
// Beyond Landlock the confined thread drops every capability and sets
// no_new_privs and, when the network is restricted, installs a seccomp
// socket filter that closes the ways around Landlock's TCP rules (see
// netfilter_linux.go and docs/security.md).
package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
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
// "enforced": nothing confines it. This is what Prepare applies (and what an
// attach reports as enforced).
func (s Support) Enforced(r Rules) (fs, net bool) {
	return r.RestrictFS && s.FS, r.RestrictNet && s.Net
}

// ErrUnenforceable is what every *UnenforceableError matches with
// errors.Is.
var ErrUnenforceable = errors.New("sandbox: cannot be enforced on this machine")

// UnenforceableError is Prepare's refusal of hermetic Rules that restrict a
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

// RulesError is Prepare's refusal of Rules that cannot be applied as
// given: a relative path or one with a NUL byte, or more roots or ports
// than the bounds in limits.go.
type RulesError struct{ Msg string }

func (e *RulesError) Error() string { return "sandbox: bad rules: " + e.Msg }

// Confinement is Rules made ready to apply to a thread: checked against
// what this machine enforces, validated, and (where Landlock enforces
// something) built into a Landlock ruleset. It is safe for concurrent use
// and may confine any number of threads; Close releases it.
type Confinement struct {
	c confinement // the per-system part (landlock_linux.go)
}

// Prepare makes r ready to apply. It returns nil and no error when r
// restricts nothing this machine can enforce (the program then runs
// unconfined, as Probe says). A dimension r restricts but Probe says is
// not fully enforced is kept as far as the kernel goes or dropped (see
// enforceable); with r.Hermetic it is an *UnenforceableError instead, and
// nothing must run. Rules that cannot be applied as given are a
// *RulesError.
//
// Everything that names a path is resolved here, on the caller's
// unconfined thread: a root that does not exist now grants nothing.
func Prepare(r Rules) (*Confinement, error) {
	if !r.restricts() {
		return nil, nil
	}
	r, err := enforceable(r, Probe())
	if err != nil {
		return nil, err
	}
	if !r.restricts() {
		return nil, nil
	}
	if err := r.validate(); err != nil {
		return nil, err
	}
	// The kernel's own ABI, not an override: an override can make Prepare
	// refuse or drop a dimension, never pretend one is enforced.
	c := &Confinement{}
	ok, err := c.c.prepare(r, probed().ABI)
	if err != nil || !ok {
		return nil, err
	}
	return c, nil
}

// Close releases what Prepare built (the Landlock ruleset descriptor). A
// nil Confinement may be closed.
func (c *Confinement) Close() {
	if c != nil {
		c.c.close()
	}
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
