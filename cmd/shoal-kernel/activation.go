package main

// Socket activation: started by systemd with a socket unit, the kernel
// serves the listening socket it is handed (LISTEN_PID is this process,
// LISTEN_FDS is 1, the socket is fd 3) instead of binding one. The socket
// then belongs to systemd: the kernel neither replaces nor removes it.
// LISTEN_* are removed from the environment, so no session or program it
// starts believes the socket is its own.

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"
)

// listenFdsStart is the first descriptor systemd passes (SD_LISTEN_FDS_START).
const listenFdsStart = 3

// activatedListener returns the Unix socket systemd passed, or nil when
// the kernel was not started by socket activation.
func activatedListener() (*net.UnixListener, error) {
	pid, fds := os.Getenv("LISTEN_PID"), os.Getenv("LISTEN_FDS")
	for _, k := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
		os.Unsetenv(k)
	}
	if pid == "" || pid != strconv.Itoa(os.Getpid()) {
		return nil, nil // not for us (a parent's, inherited)
	}
	switch n, err := strconv.Atoi(fds); {
	case err != nil || n < 1:
		return nil, fmt.Errorf("socket activation: LISTEN_FDS=%q, want 1", fds)
	case n > 1:
		return nil, fmt.Errorf("socket activation: %d sockets passed, want 1 (one ListenStream= in the socket unit)", n)
	}
	syscall.CloseOnExec(listenFdsStart)
	f := os.NewFile(listenFdsStart, "LISTEN_FDS")
	defer f.Close() // FileListener holds a duplicate
	l, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("socket activation: fd %d: %w", listenFdsStart, err)
	}
	ul, ok := l.(*net.UnixListener)
	if !ok {
		l.Close()
		return nil, fmt.Errorf("socket activation: fd %d is a %s socket, want a Unix stream socket", listenFdsStart, l.Addr().Network())
	}
	ul.SetUnlinkOnClose(false)
	return ul, nil
}
