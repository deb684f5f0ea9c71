package kernel

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// pattern is byte i of a test output: it tells offsets apart.
func outPattern(from, n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte((from + int64(i)) * 7 % 251)
	}
	return b
}

func testOutputStore(t *testing.T, dir string, perTask, perPrin, total int64, spools int) *outputStore {
	t.Helper()
	l := DefaultLimits()
	l.TaskOutputBytes, l.PrincipalOutputBytes, l.KernelOutputBytes, l.OutputSpools = perTask, perPrin, total, spools
	st, err := newOutputStore(l, dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestOutputSpoolRetention: a spool printing ten times its bound keeps
// its newest bytes, exactly, and counts the rest as dropped, in memory
// and as a file whose disk blocks stay within the bound.
func TestOutputSpoolRetention(t *testing.T) {
	const perTask, printed = 256 << 10, 2560 << 10
	for _, dir := range []string{"", t.TempDir()} {
		st := testOutputStore(t, dir, perTask, 1<<30, 1<<30, 8)
		key := outputKey{"p", "s", "task:1"}
		sp := st.open(key)
		for off := int64(0); off < printed; off += 4096 {
			if got := st.write(sp, outPattern(off, 4096)); got != off {
				t.Fatalf("write at %d reported offset %d", off, got)
			}
		}
		r, err := st.read(key, 0, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if r.offset != r.dropped || r.dropped < printed-perTask || r.next != printed || r.total != printed {
			t.Fatalf("dir %q: read = offset %d dropped %d next %d total %d", dir, r.offset, r.dropped, r.next, r.total)
		}
		if !bytes.Equal(r.data, outPattern(r.offset, r.next-r.offset)) {
			t.Fatalf("dir %q: retained bytes differ from what was written", dir)
		}
		if st.kept != printed-r.dropped || st.byPrin["p"] != st.kept {
			t.Errorf("dir %q: accounting kept %d by principal %d, want %d", dir, st.kept, st.byPrin["p"], printed-r.dropped)
		}
		if fs, ok := sp.data.(*fileSpool); ok {
			// Wait for the puncher to have freed everything dropped (a
			// skipped request is covered by this one).
			done := make(chan struct{})
			st.punches <- punchReq{s: fs, end: sp.dropped &^ (outputQuantum - 1), done: done}
			<-done
			var stt syscall.Stat_t
			if err := syscall.Fstat(int(fs.f.Fd()), &stt); err != nil {
				t.Fatal(err)
			}
			if disk := stt.Blocks * 512; disk > perTask+2*outputQuantum {
				t.Errorf("spool file takes %d bytes of disk, want at most %d", disk, perTask+2*outputQuantum)
			}
		} else if dir != "" && spoolFilesSupported {
			t.Errorf("dir %q: spool is %T, want a file", dir, sp.data)
		}
		st.forgetSession("p", "s")
		if st.kept != 0 || len(st.order) != 0 {
			t.Errorf("after the session closed: kept %d, %d spools", st.kept, len(st.order))
		}
		if dir != "" {
			if ents, _ := os.ReadDir(filepath.Join(dir, "output")); len(ents) != 0 {
				t.Errorf("spool files left after the session closed: %d", len(ents))
			}
		}
	}
}

// TestOutputSpoolSharedBounds: the per-principal and kernel-wide bounds
// drop the oldest spool's bytes first, and the spool count forgets the
// oldest spool.
func TestOutputSpoolSharedBounds(t *testing.T) {
	const bound = 512 << 10
	st := testOutputStore(t, "", 1<<30, bound, 2*bound, 3)
	a := st.open(outputKey{"p", "s", "task:1"})
	b := st.open(outputKey{"p", "s", "task:2"})
	st.write(a, outPattern(0, bound))
	st.write(b, outPattern(0, bound/2))
	if a.dropped == 0 || b.dropped != 0 || st.byPrin["p"] > bound {
		t.Errorf("principal bound: a dropped %d, b dropped %d, principal keeps %d", a.dropped, b.dropped, st.byPrin["p"])
	}
	q := st.open(outputKey{"q", "s", "task:1"})
	for range 10 {
		st.write(q, outPattern(0, bound))
	}
	if st.kept > 2*bound || st.byPrin["q"] > bound {
		t.Errorf("kernel keeps %d (bound %d), q %d (bound %d)", st.kept, 2*bound, st.byPrin["q"], bound)
	}
	st.open(outputKey{"r", "s", "task:1"})
	if len(st.order) != 3 || st.spools[outputKey{"p", "s", "task:1"}] != nil {
		t.Errorf("spool bound: %d spools, oldest kept: %v", len(st.order), st.spools[outputKey{"p", "s", "task:1"}] != nil)
	}
	// A forgotten spool's writer goes on counting, retaining nothing.
	if off := st.write(a, []byte("late")); off != a.total-4 || a.dropped != a.total {
		t.Errorf("write to a forgotten spool: offset %d, dropped %d of %d", off, a.dropped, a.total)
	}
}
