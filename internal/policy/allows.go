package policy

import (
	"errors"
	"fmt"
	"net/netip"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/host"
)

// Effect kinds that have no constant in internal/host (no host operation
// asks them today) but that plans and policies name.
const (
	NetListen    host.Effect = "net_listen"
	SecretUse    host.Effect = host.SecretUse
	SessionWrite host.Effect = "session_write"
	JournalRead  host.Effect = "journal_read"
)

// Allows reports whether the grants allow effect on subject:
//
//	fs_read, fs_write, fs_delete  subject is an absolute path; some glob of
//	                              fs.read / fs.write / fs.delete matches it
//	proc_spawn                    subject is the program: see spawnAllowed
//	net_connect                   subject is "host:port" ("[v6]:port")
//	net_listen                    subject is a port number
//	env_read, env_write,          subject is a name, or "*" for all of them
//	secret_use, sys_read          (which needs a "*" grant)
//	time, session_write,          the boolean of that name; subject unused
//	journal_read
//
// Any other effect is not allowed. A principal without a policy (Defined
// false) is allowed nothing.
func (g *Grants) Allows(effect host.Effect, subject string) bool {
	if g == nil || !g.Defined {
		return false
	}
	switch effect {
	case host.FSRead, host.FSDelete:
		return g.allowsPath(effect, subject)
	case host.FSWrite:
		// rm's plan names the trash directory itself (leash's trash
		// effect); only rm's own moves reach inside it (see WithTrash).
		return g.allowsPath(effect, subject) || g.isTrash(subject)
	case host.ProcSpawn:
		return g.spawnAllowed(subject, "")
	case host.NetConnect:
		return g.connectAllowed(subject)
	case NetListen:
		port, err := strconv.ParseUint(subject, 10, 16)
		return err == nil && (g.NetListenAny || slices.Contains(g.NetListen, uint16(port)))
	case host.EnvRead:
		return nameAllowed(g.EnvRead, subject)
	case host.EnvWrite:
		return nameAllowed(g.EnvWrite, subject)
	case SecretUse:
		return nameAllowed(g.SecretUse, subject)
	case host.SysRead:
		return nameAllowed(g.SysRead, subject)
	case host.Clock:
		return g.Time
	case SessionWrite:
		return g.SessionWrite
	case JournalRead:
		return g.JournalRead
	}
	return false
}

// normalised reports whether p is absolute and lexically clean.
func normalised(p string) bool {
	return strings.HasPrefix(p, "/") && path.Clean(p) == p
}

// allowsPath reports whether a grant of the fs effect's kind matches p,
// the trash aside.
func (g *Grants) allowsPath(effect host.Effect, p string) bool {
	switch effect {
	case host.FSRead:
		return matchAny(g.FSRead, p)
	case host.FSWrite:
		return matchAny(g.FSWrite, p)
	case host.FSDelete:
		return matchAny(g.FSDelete, p)
	}
	return false
}

func matchAny(globs []Glob, p string) bool {
	if !normalised(p) {
		return false
	}
	for _, gl := range globs {
		if gl.Match(p) {
			return true
		}
	}
	return false
}

// nameAllowed: a grant "*" allows every name and the whole-set subject
// "*"; otherwise the name must be granted exactly.
func nameAllowed(grants []string, name string) bool {
	if name == "" {
		return false
	}
	return slices.Contains(grants, "*") || (name != "*" && slices.Contains(grants, name))
}

// writable reports whether the principal could change what lives at p: p
// or one of its ancestors matches an fs.write or fs.delete grant.
func (g *Grants) writable(p string) bool {
	for q := p; ; q = path.Dir(q) {
		if matchAny(g.FSWrite, q) || matchAny(g.FSDelete, q) || g.inTrash(q) {
			return true
		}
		if q == "/" {
			return false
		}
	}
}

// spawnAllowed judges running program (an absolute path at run time, or
// the name as written in a plan) whose symlinks resolve to real ("" when
// unknown). A grant "*" allows any program. An absolute grant allows
// exactly that path (and, in a plan, a bare name equal to its base name,
// since only the run-time lookup knows the path). A bare-name grant allows a program of that base name,
// but only when neither the path nor its real target lies where the
// principal may write: otherwise copying any binary to "bin/git" inside
// the grants would pass a "git" allowance.
func (g *Grants) spawnAllowed(program, real string) bool {
	if program == "" || g == nil || !g.Defined {
		return false
	}
	if slices.Contains(g.ProcSpawn, "*") {
		return true
	}
	abs := strings.HasPrefix(program, "/")
	if abs && !normalised(program) {
		return false
	}
	base := path.Base(program)
	for _, gr := range g.ProcSpawn {
		if strings.HasPrefix(gr, "/") {
			// A bare name only occurs in a plan (the host always asks
			// with the path it found); the gate checks that path when
			// the program runs.
			if gr == program || (!strings.Contains(program, "/") && path.Base(gr) == program) {
				return true
			}
			continue
		}
		if gr != base || (!abs && strings.Contains(program, "/")) {
			continue
		}
		if abs && g.writable(program) {
			continue
		}
		if real != "" && (!normalised(real) || g.writable(real)) {
			continue
		}
		return true
	}
	return false
}

// splitHostPort splits "host:port" ("[v6]:port"); port may be "*".
func splitHostPort(s string) (hostPart, port string, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", "", false
	}
	hostPart, port = s[:i], s[i+1:]
	if strings.HasPrefix(hostPart, "[") {
		if !strings.HasSuffix(hostPart, "]") || !validV6(hostPart[1:len(hostPart)-1]) {
			return "", "", false
		}
	} else if strings.ContainsAny(hostPart, ":[]/") {
		return "", "", false
	}
	return hostPart, port, port != ""
}

func (g *Grants) connectAllowed(subject string) bool {
	h, p, ok := splitHostPort(subject)
	if !ok {
		return false
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return false
	}
	h = strings.ToLower(h)
	for _, gr := range g.NetConnect {
		if !gr.AnyPort && gr.Port != uint16(port) {
			continue
		}
		if strings.HasPrefix(gr.Host, "[") || strings.HasPrefix(h, "[") {
			if gr.Host == h {
				return true
			}
			continue
		}
		if ok, _ := path.Match(gr.Host, h); ok {
			return true
		}
	}
	return false
}

// pathMatchCheck validates a host glob.
func pathMatchCheck(h string) (bool, error) {
	if h == "" {
		return false, errors.New("empty host")
	}
	if strings.HasPrefix(h, "[") {
		return true, nil // validated by splitHostPort
	}
	return path.Match(h, "")
}

func parsePort(p string) (uint16, error) {
	n, err := strconv.ParseUint(p, 10, 16)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("port %q is not a number in 1..65535 or *", p)
	}
	return uint16(n), nil
}

// validV6 reports whether s is an IPv6 address (the inside of "[...]").
func validV6(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6()
}
