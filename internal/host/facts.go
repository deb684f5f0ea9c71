package host

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"runtime"
	"slices"
)

// FactNames are the facts Facts can read, each its own sys_read target,
// so a policy can allow one without the others.
var FactNames = []string{"hostname", "pid", "uptime", "username", "cpus", "platform", "arch"}

// Facts reads one fact about the machine or the host process after asking
// sys_read for it by name (one of FactNames); only that field is filled
// (platform fills OS, arch fills Arch). A fact the platform cannot supply
// (no host name, no user database entry, no boot clock) is left empty
// rather than failing the call.
func (o *OS) Facts(ctx context.Context, fact string) (Facts, error) {
	if !slices.Contains(FactNames, fact) {
		return Facts{}, fmt.Errorf("facts: unknown fact %q", fact)
	}
	if err := o.authorize(ctx, Op{Effect: SysRead, Target: fact}); err != nil {
		return Facts{}, err
	}
	var f Facts
	switch fact {
	case "cpus":
		f.CPUs = max(runtime.NumCPU(), 1)
	case "platform":
		f.OS = runtime.GOOS
	case "arch":
		f.Arch = runtime.GOARCH
	case "pid":
		f.Pid = os.Getpid()
	case "hostname":
		if name, err := os.Hostname(); err == nil {
			f.Hostname = name
		}
	case "username":
		if u, err := user.Current(); err == nil {
			f.Username = u.Username
		}
	case "uptime":
		f.Uptime, f.UptimeKnown = uptime()
	}
	return f, nil
}
