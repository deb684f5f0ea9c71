package blake3

import (
	"bytes"
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

// TestParallelWriteMatchesSmallWrites: a write of parallelMin bytes or more
// is hashed across goroutines, a smaller one in the caller; both give the
// digest of the same bytes written a kilobyte at a time, on every path.
func TestParallelWriteMatchesSmallWrites(t *testing.T) {
	eachPath(t, func(t *testing.T) {
		for _, n := range []int{parallelMin - 1, parallelMin, parallelMin + 1, 3*parallelMin + 12345, 2 << 20} {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i*7 + i>>11)
			}
			whole := New(32, nil)
			whole.Write(data)
			pieces := New(32, nil)
			for p := data; len(p) > 0; {
				k := min(len(p), 1000)
				pieces.Write(p[:k])
				p = p[k:]
			}
			if a, b := whole.Sum(nil), pieces.Sum(nil); !bytes.Equal(a, b) {
				t.Errorf("%d bytes: one write %x, 1000-byte writes %x", n, a, b)
			}
			if s := Sum256(data); !bytes.Equal(s[:], whole.Sum(nil)) {
				t.Errorf("%d bytes: Sum256 %x differs from the hasher's", n, s)
			}
		}
	})
}
