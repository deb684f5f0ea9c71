//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Access rights, before intersecting them with what the running kernel
// handles.
const (
	readRights  = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir)
	fileRights  = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev)
	tcpRights   = landlock.AccessNetSet(ll.AccessNetBindTCP | ll.AccessNetConnectTCP)
	signalScope = landlock.ScopedSet(ll.ScopeSignal)
	socketScope = landlock.ScopedSet(ll.ScopeAbstractUnixSocket)
)

func probeKernel() Support {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return Support{Reason: fmt.Sprintf("Landlock is not available in this kernel or not enabled at boot: %v", err)}
	}
	s := Support{ABI: abi, FS: abi >= abiFS, Net: abi >= abiNet && netFilterAvailable()}
	switch {
	case !s.FS:
		s.Reason = fmt.Sprintf("Landlock ABI %d: filesystem rules need ABI %d (truncation is not controlled before it), TCP rules ABI %d", abi, abiFS, abiNet)
	case abi < abiNet:
		s.Reason = fmt.Sprintf("Landlock ABI %d: TCP rules need ABI %d (Linux 6.7)", abi, abiNet)
	case auditArch == 0:
		s.Reason = "no socket filter for this architecture, without which Landlock's TCP rules can be bypassed (MPTCP, TCP Fast Open)"
	case !s.Net:
		s.Reason = "no seccomp in this kernel, so no socket filter, without which Landlock's TCP rules can be bypassed (MPTCP, TCP Fast Open)"
	}
	return s
}

// handled is what ABI abi's kernel handles: go-landlock's configuration
// for that version. (The table is made here, not as a package variable,
// which a package initialiser would copy at every start: go-landlock's
// configurations are variables, not constants.)
func handled(abi int) landlock.Config {
	abiConfigs := [...]landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
		landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	return abiConfigs[min(max(abi, 0), len(abiConfigs)-1)]
}

// confinement is a prepared Landlock ruleset and what else a confined
// thread gets.
type confinement struct {
	fd     atomic.Int64 // the ruleset; -1 once closed (or when Landlock enforces nothing of r)
	flags  uint32       // for landlock_restrict_self, never LANDLOCK_RESTRICT_SELF_TSYNC
	filter bool         // install the socket filter
}

// prepare builds c's ruleset for r, lowered to what ABI abi handles:
// ReadOnly roots get read and execute, ReadWrite roots every filesystem
// right the kernel handles (file rights only, for a root that is a file);
// the TCP ports get bind or connect. Roots that cannot be reached (not
// existing, for one) are skipped. Beyond r, from ABI 6 a confined process
// cannot signal processes outside its domain, nor (when the network is
// restricted) reach abstract Unix sockets outside it. ok is false when
// this kernel can enforce nothing of r.
//
// It opens every root (O_PATH) on the calling thread, which must be
// unconfined; only restrict runs on the thread to confine.
func (c *confinement) prepare(r Rules, abi int) (ok bool, err error) {
	h := handled(abi)
	var (
		fs     landlock.AccessFSSet
		net    landlock.AccessNetSet
		scoped landlock.ScopedSet
		rules  []landlock.Rule
	)
	if r.RestrictFS {
		fs = h.HandledAccessFS
		rules = appendPaths(rules, r.ReadOnly, readRights&fs, fs)
		rules = appendPaths(rules, r.ReadWrite, fs, fs)
	}
	if r.RestrictNet {
		net = tcpRights & h.HandledAccessNet
		if net != 0 {
			for _, p := range r.ConnectTCP {
				rules = append(rules, landlock.ConnectTCP(p))
			}
			for _, p := range r.BindTCP {
				rules = append(rules, landlock.BindTCP(p))
			}
		}
		scoped |= socketScope
	}
	scoped = (scoped | signalScope) & h.Scoped
	if fs == 0 && net == 0 {
		return false, nil // nothing this kernel can enforce: do not scope alone
	}
	// The sets are masks of handled(abi), so valid for this kernel.
	cfg := &landlock.Config{HandledAccessFS: fs, HandledAccessNet: net, Scoped: scoped}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return false, fmt.Errorf("sandbox: landlock ruleset: %w", err)
	}
	c.fd.Store(int64(fd))
	c.flags = flags &^ ll.FlagRestrictSelfTSync
	c.filter = net != 0 && netFilterAvailable()
	return true, nil
}

// restrict confines the calling thread, and only it: no capabilities
// (bounding set included), no_new_privs, the Landlock domain, and the
// socket filter. Each is a per-thread system call made on this thread
// (golang.org/x/sys/unix and go-landlock's raw landlock_restrict_self,
// never their all-threads variants, which would confine the whole
// process). The caller has locked its goroutine to this thread for good.
func (c *confinement) restrict() error {
	fd := int(c.fd.Load())
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if fd >= 0 {
		if err := ll.LandlockRestrictSelf(fd, c.flags); err != nil {
			return fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
		}
	} else if c.fd.Load() == closedFD {
		return errors.New("sandbox: confinement used after Close")
	}
	if c.filter {
		if err := installNetFilter(); err != nil {
			return err
		}
	}
	return nil
}

// closedFD marks a confinement whose ruleset was closed.
const closedFD = -2

func (c *confinement) close() {
	if fd := c.fd.Swap(closedFD); fd >= 0 {
		unix.Close(int(fd))
	}
}

// appendPaths adds a rule granting rights beneath each reachable path
// (only the file rights for a path that is not a directory).
func appendPaths(rules []landlock.Rule, paths []string, rights, handledFS landlock.AccessFSSet) []landlock.Rule {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue // nonexistent or unreachable: grants nothing
		}
		a := rights
		if !fi.IsDir() {
			a &= fileRights & handledFS
		}
		if a != 0 {
			rules = append(rules, landlock.PathAccess(a, p))
		}
	}
	return rules
}
