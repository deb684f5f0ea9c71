package kernel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// StateLockName is the file in a state directory that a kernel holds an
// exclusive lock on for as long as it keeps the directory open. Two kernels
// writing one journal, one blob store and one trash would each believe it
// owned the intent log's position and the blobs' references, so the second
// is refused at start.
const StateLockName = "kernel.lock"

// ErrStateDirInUse is returned by New when another kernel holds the state
// directory.
var ErrStateDirInUse = errors.New("state directory in use by another shoal-kernel")

// lockStateDir takes the state directory's lock without waiting and writes
// this process's pid into it, for the error a second kernel prints. The
// lock is released when the returned file is closed or the process ends.
func lockStateDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, StateLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("kernel: state directory lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := readLockHolder(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("kernel: %w: %s%s", ErrStateDirInUse, dir, holder)
		}
		return nil, fmt.Errorf("kernel: state directory lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// readLockHolder names the pid a lock file records, best effort.
func readLockHolder(f *os.File) string {
	buf := make([]byte, 24)
	n, _ := f.ReadAt(buf, 0)
	pid := strings.TrimSpace(string(buf[:n]))
	if _, err := strconv.Atoi(pid); err != nil || pid == "" {
		return ""
	}
	return " (pid " + pid + ")"
}
