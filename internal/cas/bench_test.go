package cas

import (
	"bytes"
	"os"
	"strconv"
	"testing"
)

// BenchmarkGet1MiB reads a whole 1 MiB blob (re-hashing it), beside the
// floor of reading the same file with os.ReadFile, unverified.
func BenchmarkGet1MiB(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	h, err := s.Put(data)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("get", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			if got, _, err := s.Get(h, 0, 0); err != nil || len(got) != len(data) {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor-readfile", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		p := blobPath(s, h)
		for range b.N {
			if got, err := os.ReadFile(p); err != nil || len(got) != len(data) {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPutExisting is a Put of content already stored: a hash, a
// verification read and a time refresh, no write.
func BenchmarkPutExisting(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 4096)
	if _, err := s.Put(data); err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if _, err := s.Put(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSum: the hash every blob is named and verified by (Put, Get, Load,
// the pack's reads), by size: the small outputs most rows carry, a pack
// blob's limit, and large outputs, where the SIMD paths of internal/blake3
// take over (docs/performance.md, "Cold start: the nineteenth round", for
// the before and after of taking the hash off klauspost/cpuid).
func BenchmarkSum(b *testing.B) {
	for _, size := range []int{64, 512, 4 << 10, 64 << 10, 1 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i % 251)
		}
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				Sum(data)
			}
		})
	}
}
