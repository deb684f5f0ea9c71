//go:build !linux

package kernel

import (
	"os"
	"time"
)

// changeTime approximates when a trash item entered the trash.
func changeTime(fi os.FileInfo) time.Time { return fi.ModTime() }

// diskBytes is fi's size.
func diskBytes(fi os.FileInfo) int64 { return fi.Size() }
