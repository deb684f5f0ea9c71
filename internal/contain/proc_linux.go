package contain

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// procStat is what /proc/<pid>/stat says of one process. A process is
// identified by (pid, start): a pid alone can be reused.
type procStat struct {
	pid, ppid, pgid, sid int
	state                byte
	start                uint64 // field 22: start time in clock ticks after boot
}

// parseStat reads the fields of a /proc/<pid>/stat line. The command name
// is in parentheses and may itself contain spaces and parentheses, so the
// fields after it are found from the last ')'.
func parseStat(b []byte) (procStat, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open || end+2 > len(b) {
		return procStat{}, errors.New("malformed stat line")
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return procStat{}, fmt.Errorf("malformed stat pid: %w", err)
	}
	f := strings.Fields(string(b[end+2:]))
	// f[0] is field 3 (state); field n is f[n-3].
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, errors.New("short stat line")
	}
	p := procStat{pid: pid, state: f[0][0]}
	ints := [...]*int{&p.ppid, &p.pgid, &p.sid}
	for i, dst := range ints {
		if *dst, err = strconv.Atoi(f[1+i]); err != nil {
			return procStat{}, fmt.Errorf("malformed stat field %d: %w", 4+i, err)
		}
	}
	if p.start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return procStat{}, fmt.Errorf("malformed stat start time: %w", err)
	}
	return p, nil
}

func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// table reads every process from /proc. Processes that exit while it reads
// are skipped.
func table() ([]procStat, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	out := make([]procStat, 0, len(names))
	for _, name := range names {
		if name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, err := readStat(pid); err == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// descendants returns the processes of t below any of roots (the roots
// themselves excluded), breadth first. It is iterative: the depth of a
// process tree is the input here.
func descendants(t []procStat, roots ...int) []procStat {
	children := make(map[int][]int, len(t))
	byPid := make(map[int]procStat, len(t))
	for _, p := range t {
		children[p.ppid] = append(children[p.ppid], p.pid)
		byPid[p.pid] = p
	}
	seen := make(map[int]bool, len(roots))
	queue := append([]int(nil), roots...)
	for _, r := range roots {
		seen[r] = true
	}
	var out []procStat
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if seen[c] {
				continue
			}
			seen[c] = true
			out = append(out, byPid[c])
			queue = append(queue, c)
		}
	}
	return out
}

// signalProc sends sig to p if the process with p's pid is still the one
// p describes (same start time). With pidfds the check and the signal
// refer to the same process, so a reused pid is never signalled.
func signalProc(p procStat, sig unix.Signal) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		if cur, err := readStat(p.pid); err == nil && cur.start == p.start {
			_ = unix.Kill(p.pid, sig)
		}
		return
	}
	defer unix.Close(fd)
	if cur, err := readStat(p.pid); err != nil || cur.start != p.start {
		return
	}
	_ = unix.PidfdSendSignal(fd, sig, nil, 0)
}

// alive reports whether p still runs (a zombie does not).
func alive(p procStat) bool {
	cur, err := readStat(p.pid)
	return err == nil && cur.start == p.start && cur.state != 'Z' && cur.state != 'X'
}
