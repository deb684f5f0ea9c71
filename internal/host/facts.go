package host

import (
	"context"
	"os"
	"os/user"
	"runtime"
)

// Facts reads facts about the machine and the host process after asking
// sys_read "facts". Missing facts (no host name, no user database entry,
// no boot clock) are left empty rather than failing the call.
func (o *OS) Facts(ctx context.Context) (Facts, error) {
	if err := o.authorize(ctx, Op{Effect: SysRead, Target: "facts"}); err != nil {
		return Facts{}, err
	}
	f := Facts{
		Pid:  os.Getpid(),
		OS:   runtime.GOOS,
		Arch: runtime.GOARCH,
		CPUs: max(runtime.NumCPU(), 1),
	}
	if name, err := os.Hostname(); err == nil {
		f.Hostname = name
	}
	if u, err := user.Current(); err == nil {
		f.Username = u.Username
	}
	f.Uptime, f.UptimeKnown = uptime()
	return f, nil
}
