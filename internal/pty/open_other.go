//go:build !linux

package pty

import (
	"errors"
	"os"
)

var errUnsupported = errors.New("pseudo-terminals are supported on Linux only")

func openPair() (master, tty *os.File, err error) { return nil, nil, errUnsupported }

func setSize(*os.File, int, int) error { return errUnsupported }
