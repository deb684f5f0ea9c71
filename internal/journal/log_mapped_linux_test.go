//go:build linux

package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/appendmap"
)

// The intent log's appends on Linux go into the segments' mappings, the
// file allocated ahead of them (logMapStep at a time); an append past
// the mapping is a pwrite at the frames' end; replay reads every frame
// back, in order, and stops at the zeros past them.
func TestMappedLogAppends(t *testing.T) {
	l, err := openLog(filepath.Join(t.TempDir(), "journal.db-log"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	if !appendmap.Supported || l.maps[0] == nil || l.maps[1] == nil {
		t.Fatalf("segments not mapped: supported %v, maps %v", appendmap.Supported, l.maps)
	}
	var lsn uint64
	var want []string
	write := func(srcs ...string) {
		t.Helper()
		var frames []byte
		for _, src := range srcs {
			lsn++
			var err error
			if frames, err = appendFrame(frames, &logOp{LSN: lsn, ID: int64(lsn), Kind: KindExec, Session: "s", Principal: "p", Src: src}); err != nil {
				t.Fatal(err)
			}
			want = append(want, src)
		}
		if err := l.write(frames, lsn, 0); err != nil {
			t.Fatal(err)
		}
	}
	size := func() int64 {
		t.Helper()
		fi, err := os.Stat(l.segPath(l.cur))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for i := range 100 {
		write(strings.Repeat("n", i))
	}
	if n := size(); n < l.size || n%logMapStep != 0 || n != l.maps[l.cur].Allocated() {
		t.Fatalf("after small appends: file %d bytes, frames %d, allocated %d (step %d)", n, l.size, l.maps[l.cur].Allocated(), logMapStep)
	}
	// Keep the log on this segment (the other holds writes not applied),
	// and pass the mapping's end with appends of about a MiB.
	l.last[1-l.cur] = 1 << 62
	for l.size < logMapBytes+(2<<20) {
		write(strings.Repeat("b", 1<<20-4096), "after")
	}
	if n := size(); n != l.size {
		t.Fatalf("past the mapping: file %d bytes, frames %d", n, l.size)
	}
	// Unmapped (a segment that could not be mapped): pwrites.
	m := l.maps[l.cur]
	l.maps[l.cur] = nil
	write("unmapped")
	l.maps[l.cur] = m
	ops, err := l.replay(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != len(want) {
		t.Fatalf("replay: %d ops, want %d", len(ops), len(want))
	}
	for i, op := range ops {
		if op.LSN != uint64(i+1) || op.Src != want[i] {
			t.Fatalf("replay op %d: lsn %d, src of %d bytes; want lsn %d, %d bytes", i, op.LSN, len(op.Src), i+1, len(want[i]))
		}
	}
	// Emptied, a segment's file is empty again, and appends start over.
	if err := l.reset(); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 0 || l.maps[l.cur].Allocated() != 0 {
		t.Fatalf("after reset: file %d bytes, allocated %d", n, l.maps[l.cur].Allocated())
	}
	want = want[:0]
	lsn = 0
	write("again")
	if ops, err := l.replay(0); err != nil || len(ops) != 1 || ops[0].Src != "again" {
		t.Fatalf("after reset: %v, %v", ops, err)
	}
}
