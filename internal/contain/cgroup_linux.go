package contain

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/procfs"
	"golang.org/x/sys/unix"
)

// cgKind is the cgroup version a hierarchy speaks.
type cgKind int

const (
	cgV1 cgKind = iota + 1
	cgV2
)

// cgroups is the Manager's cgroup directory in one hierarchy. Everything it
// holds lives in leaves: <root>/<scope>/<proc>.
type cgroups struct {
	kind    cgKind
	root    string
	freezer bool // a v1 freezer hierarchy: members can be frozen before the kill
}

// describe is the Features.Cgroup text.
func (c *cgroups) describe() string {
	if c == nil {
		return "none"
	}
	if c.kind == cgV2 {
		return "v2:" + c.root
	}
	return "v1:" + c.root
}

// ownCgroups maps each hierarchy of /proc/self/cgroup to this process's
// path in it: "" for v2 ("0::/path"), else each controller name.
func ownCgroups() (map[string]string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for ctl := range strings.SplitSeq(parts[1], ",") {
			out[ctl] = parts[2]
		}
	}
	return out, nil
}

// detectCgroups creates the Manager's directory, <name>-<pid>, below this
// process's own cgroup in the first hierarchy that allows it: v2 with
// cgroup.kill first, then a v1 freezer, then a v1 pids hierarchy. It
// returns nil when none does.
func detectCgroups(name string) *cgroups {
	mounts, err := procfs.ReadMounts()
	if err != nil {
		return nil
	}
	own, err := ownCgroups()
	if err != nil {
		return nil
	}
	leaf := name + "-" + strconv.Itoa(os.Getpid())
	if path, ok := own[""]; ok {
		for _, m := range mounts {
			if m.FSType != "cgroup2" {
				continue
			}
			if c := tryCgroup(cgV2, false, m, path, leaf); c != nil {
				return c
			}
		}
	}
	for _, ctl := range [...]string{"freezer", "pids"} {
		path, ok := own[ctl]
		if !ok {
			continue
		}
		for _, m := range mounts {
			if m.FSType == "cgroup" && m.SuperOpt(ctl) {
				if c := tryCgroup(cgV1, ctl == "freezer", m, path, leaf); c != nil {
					return c
				}
			}
		}
	}
	return nil
}

// tryCgroup creates leaf below path in mount m, or returns nil.
func tryCgroup(kind cgKind, freezer bool, m procfs.Mount, path, leaf string) *cgroups {
	rel, ok := strings.CutPrefix(path, m.Root)
	if !ok {
		return nil
	}
	dir := filepath.Join(m.Point, rel, leaf)
	c := &cgroups{kind: kind, root: dir, freezer: freezer}
	if _, err := os.Stat(dir); err == nil {
		// Left by an earlier process that had our pid and died without
		// cleaning up: nothing of ours can be in it yet.
		c.kill(dir)
		_ = c.remove(dir, 0)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	need := "cgroup.procs"
	switch {
	case kind == cgV2:
		need = "cgroup.kill"
	case freezer:
		need = "freezer.state"
	}
	if _, err := os.Stat(filepath.Join(dir, need)); err != nil {
		_ = os.Remove(dir)
		return nil
	}
	return c
}

// mkdir creates the child directory name of parent.
func (c *cgroups) mkdir(parent, name string) (string, error) {
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", fmt.Errorf("cgroup %s: %w", dir, err)
	}
	return dir, nil
}

// add moves pid into dir (v1 placement, after start).
func (c *cgroups) add(dir string, pid int) error {
	return writeFile(filepath.Join(dir, "cgroup.procs"), strconv.Itoa(pid))
}

// tree lists dir and every directory below it, parents first. It is
// iterative.
func (c *cgroups) tree(dir string) []string {
	out := []string{dir}
	for i := 0; i < len(out); i++ {
		ents, err := os.ReadDir(out[i])
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				out = append(out, filepath.Join(out[i], e.Name()))
			}
		}
	}
	return out
}

// members lists the pids in dir and below.
func (c *cgroups) members(dir string) []int {
	var out []int
	for _, d := range c.tree(dir) {
		out = append(out, readProcs(d)...)
	}
	return out
}

func readProcs(dir string) []int {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for f := range strings.FieldsSeq(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// kill ends every process in dir and below: v2 with cgroup.kill (the
// kernel kills every member, forks in progress included); v1 by freezing
// each directory, killing its members and thawing it, in rounds until
// none is left, so that a forking member cannot outrun the sweep.
func (c *cgroups) kill(dir string) {
	if c.kind == cgV2 {
		if err := writeFile(filepath.Join(dir, "cgroup.kill"), "1"); err == nil {
			return
		}
	}
	for range killRounds {
		found := false
		for _, d := range c.tree(dir) {
			if c.freezer {
				freeze(d, true)
			}
			for _, pid := range readProcs(d) {
				found = true
				_ = unix.Kill(pid, unix.SIGKILL)
			}
			if c.freezer {
				freeze(d, false)
			}
		}
		if !found {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// freeze sets a v1 freezer directory FROZEN (waiting briefly until it is)
// or THAWED.
func freeze(dir string, frozen bool) {
	state := filepath.Join(dir, "freezer.state")
	if !frozen {
		_ = writeFile(state, "THAWED")
		return
	}
	if writeFile(state, "FROZEN") != nil {
		return
	}
	for range 50 {
		b, err := os.ReadFile(state)
		if err != nil || strings.TrimSpace(string(b)) == "FROZEN" {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// populated reports whether any process is in dir or below.
func (c *cgroups) populated(dir string) bool {
	if c.kind == cgV2 {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
		if err == nil {
			return !bytes.Contains(b, []byte("populated 0"))
		}
	}
	return len(c.members(dir)) > 0
}

// leafFDs are the descriptors of a v2 leaf that every spawn into it uses,
// opened once when the leaf is made and kept while a process tree or the
// scope's pool of empty leaves holds it: the directory (the cgroup fd a
// child is placed with at clone) and its cgroup.events, re-read with pread
// at offset 0, where a cgroup file regenerates its text. A descriptor is
// -1 when it is not open; then the path is used, as for v1.
type leafFDs struct{ dir, events int }

// noLeafFDs is a leaf with no descriptors open.
var noLeafFDs = leafFDs{dir: -1, events: -1}

// openLeaf opens dir's descriptors (none for v1, whose leaves are joined
// by pid and read by members).
func (c *cgroups) openLeaf(dir string) leafFDs {
	fds := noLeafFDs
	if c.kind != cgV2 {
		return fds
	}
	if fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		fds.dir = fd
	}
	if fd, err := unix.Open(filepath.Join(dir, "cgroup.events"), unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
		fds.events = fd
	}
	return fds
}

// count is how many of the descriptors are open.
func (f leafFDs) count() int {
	n := 0
	if f.dir >= 0 {
		n++
	}
	if f.events >= 0 {
		n++
	}
	return n
}

// close closes the descriptors that are open.
func (f *leafFDs) close() {
	if f.dir >= 0 {
		unix.Close(f.dir)
	}
	if f.events >= 0 {
		unix.Close(f.events)
	}
	*f = noLeafFDs
}

// populatedLeaf is populated for a leaf whose descriptors are fds: one
// pread of its open cgroup.events instead of an open, read and close of
// the file, the path when that fails.
func (c *cgroups) populatedLeaf(dir string, fds leafFDs) bool {
	if fds.events >= 0 {
		var buf [128]byte
		n, err := unix.Pread(fds.events, buf[:], 0)
		if err == nil && n > 0 {
			return !bytes.Contains(buf[:n], []byte("populated 0"))
		}
	}
	return c.populated(dir)
}

// remove deletes dir and the directories below it, children first,
// waiting up to wait for killed members to be gone. A directory that
// still has members stays; the error says so.
func (c *cgroups) remove(dir string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for c.populated(dir) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	dirs := c.tree(dir)
	var errs []error
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := unix.Rmdir(dirs[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove cgroup %s: %w", dirs[i], err))
		}
	}
	return errors.Join(errs...)
}

func writeFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(s)
	cerr := f.Close()
	if werr != nil {
		return werr
	}
	return cerr
}
