//go:build !linux

package mcp

import (
	"io"
	"net"
	"os"
)

// RawStdio returns in and out as they are: raw I/O is Linux's here.
func RawStdio(in, out *os.File) (io.ReadCloser, io.WriteCloser) { return in, out }

// rawSocket returns nc as it is.
func rawSocket(nc net.Conn) net.Conn { return nc }
