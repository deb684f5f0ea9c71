package auth

import (
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive flock on name in d (created 0600 if missing,
// never through a symbolic link) and returns the function that releases
// it. flock locks belong to the open file, so separate opens in one
// process exclude each other too.
func (d *storeDir) lock(name string) (func(), error) {
	f, _, err := d.openFile(name, unix.O_RDWR|unix.O_CREAT)
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
