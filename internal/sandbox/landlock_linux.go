//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"

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

// abiConfigs are go-landlock's configurations per ABI version: what each
// version handles.
var abiConfigs = []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

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

// handled is what ABI abi's kernel handles.
func handled(abi int) landlock.Config {
	return abiConfigs[min(max(abi, 0), len(abiConfigs)-1)]
}

// apply restricts the calling thread to r, and locks the calling
// goroutine to it: the caller must exec from the same goroutine. r is
// lowered to what ABI abi handles: ReadOnly roots get read and execute, ReadWrite
// roots every filesystem right the kernel handles (file rights only, for
// a root that is a file); the TCP ports get bind or connect. Roots that
// cannot be reached (not existing, for one) are skipped. Beyond r, from
// ABI 6 a confined process cannot signal processes outside its domain,
// nor (when the network is restricted) reach abstract Unix sockets
// outside it.
func apply(r Rules, abi int) error {
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
		return nil // nothing this kernel can enforce: do not scope alone
	}
	// The sets are masks of handled(abi), so valid for this kernel.
	cfg := &landlock.Config{HandledAccessFS: fs, HandledAccessNet: net, Scoped: scoped}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("sandbox: landlock ruleset: %w", err)
	}
	if fd >= 0 {
		defer unix.Close(fd)
	}
	// Only this thread is restricted: it is the one that execs the
	// target, and execve keeps only the calling thread, with its
	// capabilities, no_new_privs, Landlock domain and seccomp filter. So
	// the goroutine stays locked to its thread for good, and
	// go-landlock's all-threads paths (psx) are never used.
	runtime.LockOSThread()
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	if fd >= 0 {
		if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
			return fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
		}
	}
	if net != 0 && netFilterAvailable() {
		if err := installNetFilter(); err != nil {
			return err
		}
	}
	return nil
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
