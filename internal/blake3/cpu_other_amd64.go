//go:build !darwin

package blake3

// osAVX512 reports whether the OS saves the AVX-512 state: XCR0's opmask and
// ZMM bits (7:5) and its SSE and AVX bits (2:1).
func osAVX512(_ bool, xcr0 uint32) bool {
	return (xcr0>>5)&7 == 7 && (xcr0>>1)&3 == 3
}
