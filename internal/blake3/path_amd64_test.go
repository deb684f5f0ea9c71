package blake3

import (
	"sync"
	"testing"
)

// eachPath runs test once with each SIMD path this CPU and OS support forced
// on (AVX-512, AVX2, none), restoring the detected one after.
func eachPath(t *testing.T, test func(*testing.T)) {
	have := detect()
	saved := cpu
	defer func() { cpu = saved }()
	paths := []struct {
		name string
		f    features
		ok   bool
	}{
		{"avx512", features{avx2: have.avx2, avx512: true}, have.avx512},
		{"avx2", features{avx2: true}, have.avx2},
		{"generic", features{}, true},
	}
	for _, p := range paths {
		if !p.ok {
			t.Logf("%s: this CPU has no %s path", t.Name(), p.name)
			continue
		}
		f := p.f
		cpu = func() features { return f }
		t.Run(p.name, test)
	}
}

// TestDetectAgreesWithCPUInfo: the lazy detection answers as the kernel's
// view of the CPU does (the avx2 and avx512f flags of /proc/cpuinfo, which
// the kernel shows only when it also saves the state), where there is one.
func TestDetectAgreesWithCPUInfo(t *testing.T) {
	flags, ok := cpuinfoFlags()
	if !ok {
		t.Skip("no /proc/cpuinfo flags line")
	}
	f := detect()
	if f.avx2 != flags["avx2"] || f.avx512 != flags["avx512f"] {
		t.Errorf("detect() = %+v; /proc/cpuinfo has avx2=%v avx512f=%v", f, flags["avx2"], flags["avx512f"])
	}
}

// TestSmallHashesDetectNothing: a hash of at most one chunk, the size of
// nearly every digest at start (Reef's project files, small CAS objects),
// takes no SIMD path and so never runs the detection.
func TestSmallHashesDetectNothing(t *testing.T) {
	saved := cpu
	defer func() { cpu = saved }()
	var asked sync.Once
	called := false
	cpu = func() features { asked.Do(func() { called = true }); return saved() }
	Sum256(make([]byte, ChunkSize))
	h := New(32, nil)
	h.Write(make([]byte, 100))
	h.Write(make([]byte, ChunkSize-100))
	h.Sum(nil)
	if called {
		t.Fatal("hashing one chunk asked for the CPU's features")
	}
	Sum256(make([]byte, 3*ChunkSize))
	if !called {
		t.Fatal("hashing three chunks did not ask for the CPU's features: the test no longer sees the detection")
	}
}
