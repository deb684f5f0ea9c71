//go:build !linux

package host

// realPathKernel is the Linux fast path of realPath; elsewhere the
// components are walked.
func realPathKernel(string, bool) (string, bool, bool) { return "", false, false }
