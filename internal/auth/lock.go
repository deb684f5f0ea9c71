package auth

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockWait bounds how long a writer waits for another to finish.
const lockWait = 10 * time.Second

// lockFile takes an exclusive flock on path (created 0600 if missing) and
// returns the function that releases it. flock locks belong to the open
// file, so separate opens in one process exclude each other too.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(lockWait)
	delay := time.Millisecond
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, err
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("still held by another writer after %s", lockWait)
		}
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
	}
}
