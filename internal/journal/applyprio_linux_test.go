package journal

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// threadNice reads a thread's nice value from /proc (field 19 of stat).
func threadNice(t *testing.T, tid string) (int, bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/task/" + tid + "/stat")
	if err != nil {
		return 0, false // the thread ended meanwhile
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, err := strconv.Atoi(fields[16]) // field 19; fields[0] is field 3
	if err != nil {
		t.Fatalf("stat of %s: %q", tid, s)
	}
	return n, true
}

// TestApplierThreadAlone: the background applier runs on a thread of its
// own at ApplierNice, and every other thread of the process, including
// those the runtime starts after it (goroutines blocked in system calls
// make it start more), keeps nice 0; the thread ends with the journal.
func TestApplierThreadAlone(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	var tid int64
	for i := 0; tid == 0; i++ {
		if i == 5000 {
			t.Fatal("the applier never said which thread it runs on")
		}
		time.Sleep(time.Millisecond)
		tid = d.ap.thread.Load()
	}
	// Make the applier work (a batch on its thread) while the runtime
	// starts threads for goroutines sleeping in system calls.
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r [1]byte
			f, err := os.Open("/dev/zero")
			if err != nil {
				return
			}
			defer f.Close()
			for range 200 {
				_, _ = f.Read(r[:])
				time.Sleep(50 * time.Microsecond)
			}
		}()
	}
	for i := range 50 {
		if _, err := d.Begin(&Entry{Kind: "exec", Src: "1 + " + strconv.Itoa(i), Principal: "owner", Session: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	// The background applier takes them (not sync, which would apply
	// them on this goroutine).
	for i := 0; d.ap.applied.Load() < d.ap.appended.Load(); i++ {
		if i == 10000 {
			t.Fatal("the applier never applied the rows")
		}
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
	me := strconv.FormatInt(tid, 10)
	if on := d.ap.batchOn.Load(); on != tid {
		t.Errorf("the background batch ran on thread %d, not the applier's %d", on, tid)
	}
	if tid == int64(os.Getpid()) {
		if n, _ := threadNice(t, me); n != 0 {
			t.Fatalf("the main thread, the applier's, has nice %d", n)
		}
		d.Close()
		t.Skip("the applier runs on the main thread, which is left at its priority")
	}
	if n, ok := threadNice(t, me); !ok || n != ApplierNice {
		t.Fatalf("applier thread %s: nice %d (alive %v), want %d", me, n, ok, ApplierNice)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 3 {
		t.Fatalf("only %d threads", len(tasks))
	}
	for _, e := range tasks {
		if e.Name() == me {
			continue
		}
		if n, ok := threadNice(t, e.Name()); ok && n != 0 {
			t.Errorf("thread %s has nice %d: only the applier's should be lowered", e.Name(), n)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, err := os.Stat("/proc/self/task/" + me); os.IsNotExist(err) {
			break
		}
		if i == 5000 {
			t.Fatalf("the applier's thread %s outlived the journal", me)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestApplierUrgentBatchAtKernelPriority: an urgent batch (a full one, or
// writers held back) is not applied on the applier's low-priority thread
// but on one at the kernel's priority, and its rows are applied.
func TestApplierUrgentBatchAtKernelPriority(t *testing.T) {
	d, err := Open(filepath.Join(t.TempDir(), "journal.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	me := int64(threadID())
	for i := range 20 {
		if _, err := d.Begin(&Entry{Kind: "exec", Src: "2 + " + strconv.Itoa(i), Principal: "owner", Session: "s"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.applyBackground(true); err != nil {
		t.Fatal(err)
	}
	on := d.ap.batchOn.Load()
	if on == me || on == d.ap.thread.Load() || on == 0 {
		t.Fatalf("the urgent batch ran on thread %d (the caller's %d, the applier's %d)", on, me, d.ap.thread.Load())
	}
	if n, ok := threadNice(t, strconv.FormatInt(on, 10)); ok && n != 0 {
		t.Errorf("the urgent batch's thread %d has nice %d", on, n)
	}
	if d.ap.applied.Load() < d.ap.appended.Load() {
		t.Errorf("applied %d of %d", d.ap.applied.Load(), d.ap.appended.Load())
	}
	if _, err := d.applyBackground(false); err != nil {
		t.Fatal(err)
	}
	if on := d.ap.batchOn.Load(); on != me {
		t.Errorf("a batch that is not urgent ran on thread %d, not the caller's %d", on, me)
	}
}
