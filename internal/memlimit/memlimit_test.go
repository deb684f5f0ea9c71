package memlimit

import (
	"errors"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/procfs"
)

const (
	gib = 1 << 30
	mib = 1 << 20
)

// TestDerive is the formula's table: each source alone, all three, none,
// tiny limits and huge ones.
func TestDerive(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		f                     Facts
		source                string
		limit, usable         int64
		soft, kernel, session int64
	}{
		{"rlimit only", Facts{RlimitAS: 4_000_000_000}, SourceRlimitAS, 4_000_000_000, 4_000_000_000 - VirtualReserve,
			(4_000_000_000 - VirtualReserve) / 4 * 3, (4_000_000_000 - VirtualReserve) / 2, (4_000_000_000 - VirtualReserve) / 2 / 2},
		{"rlimit 2 GiB", Facts{RlimitAS: 2 * gib}, SourceRlimitAS, 2 * gib, 768 * mib, 576 * mib, 384 * mib, 192 * mib},
		{"cgroup only", Facts{Cgroup: 3 * gib}, SourceCgroup, 3 * gib, 3 * gib, 1536 * mib, gib, 512 * mib},
		{"physical only", Facts{Physical: 24 * gib}, SourcePhysical, 24 * gib, 24 * gib, 12 * gib, 8 * gib, 2 * gib},
		{"all three, rlimit smallest", Facts{RlimitAS: 4 * gib, Cgroup: 3 * gib, Physical: 24 * gib}, SourceRlimitAS, 4 * gib, 2816 * mib,
			2112 * mib, 1408 * mib, 704 * mib},
		{"all three, cgroup smallest", Facts{RlimitAS: 8 * gib, Cgroup: 2 * gib, Physical: 24 * gib}, SourceCgroup, 2 * gib, 2 * gib,
			gib, 2 * gib / 3, 2 * gib / 3 / 2},
		{"all three, physical smallest", Facts{RlimitAS: 64 * gib, Cgroup: 32 * gib, Physical: 6 * gib}, SourcePhysical, 6 * gib, 6 * gib,
			3 * gib, 2 * gib, gib},
		{"the rlimit's reserve decides", Facts{RlimitAS: 5 * gib, Cgroup: 4*gib + 512*mib}, SourceRlimitAS, 5 * gib, 5*gib - VirtualReserve,
			(5*gib - VirtualReserve) / 4 * 3, (5*gib - VirtualReserve) / 2, (5*gib - VirtualReserve) / 2 / 2},
		{"unlimited everywhere", Facts{}, SourceNone, 0, 24 * gib, 12 * gib, 8 * gib, 2 * gib},
		{"large machine keeps the reference figures", Facts{Physical: 512 * gib}, SourcePhysical, 512 * gib, 512 * gib, 12 * gib, 8 * gib, 2 * gib},
		{"rlimit below the reserve", Facts{RlimitAS: gib, Physical: 24 * gib}, SourceRlimitAS, gib, MinUsable,
			MinUsable / 4 * 3, MinUsable / 2, MinUsable / 2 / 2},
		{"huge rlimit", Facts{RlimitAS: 1 << 63}, SourceRlimitAS, 1 << 62, 1 << 62, 12 * gib, 8 * gib, 2 * gib},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Derive(tc.f)
			if d.Source != tc.source || d.Limit != tc.limit || d.Usable != tc.usable {
				t.Errorf("source %s limit %d usable %d, want %s %d %d", d.Source, d.Limit, d.Usable, tc.source, tc.limit, tc.usable)
			}
			if d.SoftLimit != tc.soft || d.KernelBudget != tc.kernel || d.SessionBudget != tc.session {
				t.Errorf("soft %d kernel %d session %d, want %d %d %d", d.SoftLimit, d.KernelBudget, d.SessionBudget, tc.soft, tc.kernel, tc.session)
			}
			if d.SessionBudget > d.KernelBudget || d.KernelBudget > d.SoftLimit || d.SoftLimit > d.Usable {
				t.Errorf("bounds out of order: %+v", d)
			}
		})
	}
}

// fakeFS serves cgroup files from a map.
type fakeFS map[string]string

func (f fakeFS) read(name string) (string, error) {
	if s, ok := f[name]; ok {
		return s, nil
	}
	return "", errors.New("no such file")
}

const mountsV2 = `25 1 0:23 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
26 1 0:24 / /proc rw - proc proc rw
`

const mountsV1 = `30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
35 30 0:32 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices
40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`

// TestCgroupLimit reads v2 and v1 hierarchies: "max", a parent's smaller
// limit, v1's no-limit figure, a cgroup namespace, no memory controller.
func TestCgroupLimit(t *testing.T) {
	for _, tc := range []struct {
		name, proc, mounts string
		files              fakeFS
		want               uint64
	}{
		{"v2 max", "0::/user.slice/k.scope\n", mountsV2, fakeFS{
			"/sys/fs/cgroup/user.slice/k.scope/memory.max": "max\n",
			"/sys/fs/cgroup/user.slice/memory.max":         "max\n",
		}, 0},
		{"v2 own limit", "0::/user.slice/k.scope\n", mountsV2, fakeFS{
			"/sys/fs/cgroup/user.slice/k.scope/memory.max": "2147483648\n",
			"/sys/fs/cgroup/user.slice/memory.max":         "max\n",
		}, 2 << 30},
		{"v2 parent smaller", "0::/user.slice/k.scope\n", mountsV2, fakeFS{
			"/sys/fs/cgroup/user.slice/k.scope/memory.max": "8589934592\n",
			"/sys/fs/cgroup/user.slice/memory.max":         "1073741824\n",
		}, 1 << 30},
		{"v2 namespace", "0::/\n", `25 1 0:23 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw
`, fakeFS{"/sys/fs/cgroup/memory.max": "536870912\n"}, 512 << 20},
		{"v1 unlimited", "4:memory:/process_api/x\n0::/\n", mountsV1, fakeFS{
			"/sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "9223372036854771712\n",
			"/sys/fs/cgroup/memory/memory.limit_in_bytes":               "9223372036854771712\n",
		}, 0},
		{"v1 limited", "4:memory:/process_api/x\n0::/\n", mountsV1, fakeFS{
			"/sys/fs/cgroup/memory/process_api/x/memory.limit_in_bytes": "3221225472\n",
		}, 3 << 30},
		{"v1 joint controllers", "4:cpu,memory:/a\n", `34 30 0:31 / /sys/fs/cgroup/cpu,memory rw - cgroup cgroup rw,cpu,memory
`, fakeFS{"/sys/fs/cgroup/cpu,memory/a/memory.limit_in_bytes": "1000000\n"}, 1000000},
		{"no memory cgroup", "1:cpu:/\n", mountsV1, fakeFS{}, 0},
		{"garbage", "0::/x\n", mountsV2, fakeFS{"/sys/fs/cgroup/x/memory.max": "lots\n"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := cgroupLimit(tc.proc, parseMounts(t, tc.mounts), tc.files.read); got != tc.want {
				t.Errorf("cgroupLimit = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestDeriveCgroupMax: a cgroup "max" is no limit, so physical memory
// decides.
func TestDeriveCgroupMax(t *testing.T) {
	cg := cgroupLimit("0::/k\n", parseMounts(t, mountsV2), fakeFS{"/sys/fs/cgroup/k/memory.max": "max\n"}.read)
	d := Derive(Facts{Cgroup: cg, Physical: 16 * gib})
	if d.Source != SourcePhysical || d.Usable != 16*gib {
		t.Errorf("cgroup max: source %s usable %d, want physical 16 GiB", d.Source, d.Usable)
	}
}

// parseMounts parses a mount table written for a test.
func parseMounts(t *testing.T, text string) []procfs.Mount {
	t.Helper()
	m, err := procfs.ParseMounts(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDetect reads this machine's limits: whatever they are, the derived
// bounds are ordered and positive.
func TestDetect(t *testing.T) {
	d := Derive(Detect())
	t.Logf("detected %+v", d)
	if d.SessionBudget <= 0 || d.SessionBudget > d.KernelBudget || d.KernelBudget > d.SoftLimit {
		t.Errorf("derived bounds out of order: %+v", d)
	}
}
