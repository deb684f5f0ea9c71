package blake3

import "syscall"

// osAVX512 on macOS: the kernel enables the AVX-512 state on a thread's first
// use, so XCR0 does not show it; ask the kernel instead, as upstream's
// cpu_darwin.go did (after cpuid's commpage check, which reads the same
// answer).
func osAVX512(avx bool, _ uint32) bool {
	if !avx {
		return false
	}
	b, _ := syscall.Sysctl("hw.optional.avx512f")
	return len(b) > 0 && b[0] == 1
}
