package blake3

import "sync"

// features is what the compressor needs to know of the CPU.
type features struct {
	avx2, avx512 bool
}

// cpu reports the CPU's SIMD features, detected on first use: a process whose
// hashes are all small (a chunk, 1 KiB, or so) never asks. Upstream
// read them from github.com/klauspost/cpuid/v2, whose package init runs some
// dozens of CPUID instructions for every feature it knows; this asks the
// three leaves the two answers need. The tests may replace it to force a path.
// A sync.Once rather than sync.OnceValue, whose closure would be made by a
// package initialiser: this package has none.
var cpu = detected

var (
	detectOnce sync.Once
	detectedF  features
)

func detected() features {
	detectOnce.Do(func() { detectedF = detect() })
	return detectedF
}

// Implemented in cpu_amd64.s.
func cpuidex(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)
func xgetbv0() (eax, edx uint32)

// detect decides AVX2 and AVX-512F the way cpuid v2.0.9 did for upstream:
// AVX2 needs the OS to save the YMM state (OSXSAVE, AVX, XCR0 bits 1-2) and
// CPUID.(7,0):EBX bit 5; AVX-512F needs XCR0 bits 1-2 and 5-7 (the opmask
// and ZMM states) and CPUID.(7,0):EBX bit 16.
func detect() features {
	maxLeaf, _, _, _ := cpuidex(0, 0)
	if maxLeaf < 7 {
		return features{}
	}
	_, _, ecx1, _ := cpuidex(1, 0)
	const xsave, osxsave, avx = 1 << 26, 1 << 27, 1 << 28
	if ecx1&(xsave|osxsave) != xsave|osxsave {
		return features{}
	}
	xcr0, _ := xgetbv0()
	_, ebx7, _, _ := cpuidex(7, 0)
	var f features
	f.avx2 = ecx1&avx != 0 && xcr0&0x6 == 0x6 && ebx7&(1<<5) != 0
	f.avx512 = ebx7&(1<<16) != 0 && osAVX512(ecx1&avx != 0 && xcr0&0x6 == 0x6, xcr0)
	return f
}
