//go:build linux

package host

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRealPathRelativeTargets checks the resolver on relative link
// targets: each resolves against the directory holding the link, chains
// of them across directories, and ".." after a link pops the target.
func TestRealPathRelativeTargets(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	for _, d := range []string{"w/sub/deep", "o/x", "w/other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"w/sub/up":        "..",              // w
		"w/sub/out":       "../../o",         // o, not relative to the working directory
		"w/sub/deep/hop":  "../out/x",        // through another relative link: o/x
		"w/other/chain":   "../sub/deep/hop", // o/x again, two directories away
		"w/sub/dotdot":    "deep/..",         // w/sub
		"w/sub/deep/abs":  root + "/o",
		"w/sub/deep/self": ".",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	w, o := root+"/w", root+"/o"
	for _, c := range []struct{ in, want string }{
		{w + "/sub/up", w},
		{w + "/sub/up/other", w + "/other"},
		{w + "/sub/out", o},
		{w + "/sub/out/x/f", o + "/x/f"},
		{w + "/sub/deep/hop", o + "/x"},
		{w + "/other/chain", o + "/x"},
		{w + "/other/chain/..", o}, // ".." pops the link's target, not the name
		{w + "/sub/out/../w/sub", w + "/sub"},
		{w + "/sub/dotdot/deep", w + "/sub/deep"},
		{w + "/sub/deep/abs/x", o + "/x"},
		{w + "/sub/deep/self/self/hop", o + "/x"},
	} {
		for _, walk := range []bool{false, true} {
			var got string
			var ok bool
			if walk {
				got, ok = realPathWalk(c.in, true)
			} else {
				got, ok = realPath(c.in, true)
			}
			if !ok || got != c.want {
				t.Errorf("realPath(%s) (walk %v) = %q, %v; want %q", c.in, walk, got, ok, c.want)
			}
		}
	}
}

// TestRealPathHopBound checks the bound on links followed: a chain of
// maxSymlinkHops links resolves, one more is refused, and a loop is
// refused, by both resolvers.
func TestRealPathHopBound(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	if err := os.WriteFile(dir+"/end", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	prev := "end"
	for i := 1; i <= maxSymlinkHops+1; i++ {
		name := fmt.Sprintf("l%d", i)
		if err := os.Symlink(prev, dir+"/"+name); err != nil {
			t.Fatal(err)
		}
		prev = name
	}
	if err := os.Symlink("loopb", dir+"/loopa"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loopa", dir+"/loopb"); err != nil {
		t.Fatal(err)
	}
	within := fmt.Sprintf("%s/l%d", dir, maxSymlinkHops)
	beyond := fmt.Sprintf("%s/l%d", dir, maxSymlinkHops+1)
	for _, r := range []func(string, bool) (string, bool){realPath, realPathWalk} {
		if got, ok := r(within, true); !ok || got != dir+"/end" {
			t.Errorf("%d hops: %q, %v", maxSymlinkHops, got, ok)
		}
		if _, ok := r(beyond, true); ok {
			t.Errorf("%d hops resolved", maxSymlinkHops+1)
		}
		if _, ok := r(dir+"/loopa", true); ok {
			t.Error("a loop resolved")
		}
	}
}

// swapFixture is a granted directory w and an outside directory o that
// mirrors it with marked content. The gate allows paths under w only
// (judging Target and Real, as the policy gate does) and, the first time
// it allows an op, swaps w's entry on the way to that op's real path for a
// symlink to its twin in o: the co-tenant's move, landing exactly between
// the judgment and the act.
type swapFixture struct {
	w, o    string
	mu      sync.Mutex
	swapped string // the entry of w swapped, once it was
	calls   int
	endless bool // swap at every judgment (see TestHeldGivesUp)
}

const outsideMark = "OUTSIDE-SECRET"

func newSwapFixture(t *testing.T) *swapFixture {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	f := &swapFixture{w: root + "/w", o: root + "/o"}
	for _, base := range []string{f.w, f.o} {
		mark := "inside"
		if base == f.o {
			mark = outsideMark
		}
		for _, d := range []string{"d", "d/sub", "src"} {
			if err := os.MkdirAll(base+"/"+d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range []string{"x", "d/f", "d/sub/g", "src/a"} {
			if err := os.WriteFile(base+"/"+p, []byte(mark+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if base == f.o { // names that only the outside has
			if err := os.WriteFile(base+"/d/"+strings.ToLower(outsideMark), []byte(mark), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return f
}

func (f *swapFixture) inside(p string) bool { return p == f.w || strings.HasPrefix(p, f.w+"/") }

func (f *swapFixture) Authorize(_ context.Context, op Op) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if !f.inside(op.Target) || (op.Real != "" && !f.inside(op.Real)) {
		return Denied(op, "outside w")
	}
	if f.swapped != "" && !f.endless {
		return nil
	}
	if f.endless {
		// Replace the judged file by a symlink to a fresh copy of it:
		// every judgment is inside, every open meets a symlink.
		n := fmt.Sprintf("%s.%d", op.Real, f.calls)
		if os.Rename(op.Real, n) == nil {
			_ = os.Symlink(n, op.Real)
		}
		f.swapped = op.Real
		return nil
	}
	rel := strings.TrimPrefix(op.Real, f.w+"/")
	entry := strings.SplitN(rel, "/", 2)[0]
	if op.Real == f.w || entry == "" {
		return nil
	}
	if _, err := os.Lstat(f.o + "/" + entry); err != nil {
		return nil // nothing outside to point at
	}
	if err := os.Rename(f.w+"/"+entry, f.w+"/"+entry+".orig"); err != nil {
		return nil
	}
	if err := os.Symlink(f.o+"/"+entry, f.w+"/"+entry); err != nil {
		return nil
	}
	f.swapped = entry
	return nil
}

// fingerprint is every name, mode, size, mtime and content digest under
// dir.
func fingerprint(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestHeldSwapAtJudgment runs every filesystem operation of a gated host
// with a symlink swapped in between its judgment and its act: each must
// refuse on the second look (denied), never read the outside marker, and
// leave the outside tree exactly as it was. The same table against the
// old judge-then-reopen code reads and writes the outside files.
func TestHeldSwapAtJudgment(t *testing.T) {
	ctx := context.Background()
	type result struct {
		data []byte
		err  error
	}
	ops := []struct {
		name string
		run  func(h Host, w string) result
	}{
		{"ReadFile", func(h Host, w string) result { d, err := h.ReadFile(ctx, w+"/x"); return result{d, err} }},
		{"ReadFileDeep", func(h Host, w string) result { d, err := h.ReadFile(ctx, w+"/d/sub/g"); return result{d, err} }},
		{"ReadPrefix", func(h Host, w string) result { d, _, err := h.ReadPrefix(ctx, w+"/d/f", 100); return result{d, err} }},
		{"ReadEach", func(h Host, w string) result {
			var all []byte
			err := h.ReadEach(ctx, w+"/d/f", func(b []byte) error { all = append(all, b...); return nil })
			return result{all, err}
		}},
		{"Stat", func(h Host, w string) result { _, err := h.Stat(ctx, w+"/d/f"); return result{nil, err} }},
		{"Lstat", func(h Host, w string) result { _, err := h.Lstat(ctx, w+"/d/f"); return result{nil, err} }},
		{"ReadDir", func(h Host, w string) result {
			es, err := h.ReadDir(ctx, w+"/d")
			var names []byte
			for _, e := range es {
				names = append(names, e.Name()+" "...)
			}
			return result{names, err}
		}},
		{"Glob", func(h Host, w string) result {
			ms, err := h.Glob(ctx, w+"/d", "*", true)
			return result{[]byte(strings.Join(ms, " ")), err}
		}},
		{"GlobDeep", func(h Host, w string) result {
			ms, err := h.Glob(ctx, w, "d/**", true)
			return result{[]byte(strings.Join(ms, " ")), err}
		}},
		{"WriteFile", func(h Host, w string) result { return result{nil, h.WriteFile(ctx, w+"/x", []byte("pwned"), false)} }},
		{"WriteNew", func(h Host, w string) result {
			return result{nil, h.WriteFile(ctx, w+"/d/new", []byte("pwned"), false)}
		}},
		{"Append", func(h Host, w string) result { return result{nil, h.WriteFile(ctx, w+"/d/f", []byte("pwned"), true)} }},
		{"MkdirAll", func(h Host, w string) result { return result{nil, h.MkdirAll(ctx, w+"/d/new/deeper")} }},
		{"Remove", func(h Host, w string) result { return result{nil, h.Remove(ctx, w+"/d/f", false)} }},
		{"RemoveTree", func(h Host, w string) result { return result{nil, h.Remove(ctx, w+"/d/sub", true)} }},
		{"RenameFrom", func(h Host, w string) result { return result{nil, h.Rename(ctx, w+"/d/f", w+"/moved")} }},
		{"RenameTo", func(h Host, w string) result {
			if err := os.WriteFile(w+"/new", []byte("pwned"), 0o644); err != nil {
				return result{nil, err}
			}
			return result{nil, h.Rename(ctx, w+"/new", w+"/d/f")}
		}},
		{"CopyFrom", func(h Host, w string) result {
			err := h.Copy(ctx, w+"/d/f", w+"/copy", false)
			d, _ := os.ReadFile(w + "/copy")
			return result{d, err}
		}},
		{"CopyTo", func(h Host, w string) result {
			if err := os.WriteFile(w+"/new", []byte("pwned"), 0o644); err != nil {
				return result{nil, err}
			}
			return result{nil, h.Copy(ctx, w+"/new", w+"/d/f", false)}
		}},
		{"CopyTree", func(h Host, w string) result {
			err := h.Copy(ctx, w+"/d", w+"/tree", true)
			d, _ := os.ReadFile(w + "/tree/f")
			return result{d, err}
		}},
		{"Symlink", func(h Host, w string) result { return result{nil, h.Symlink(ctx, "/etc/passwd", w+"/d/l")} }},
		{"Link", func(h Host, w string) result {
			err := h.Link(ctx, w+"/d/f", w+"/hard")
			d, _ := os.ReadFile(w + "/hard")
			return result{d, err}
		}},
		{"LinkInto", func(h Host, w string) result { return result{nil, h.Link(ctx, w+"/src/a", w+"/d/hard")} }},
		{"Chtimes", func(h Host, w string) result {
			return result{nil, h.Chtimes(ctx, w+"/d/f", time.Unix(1, 0), time.Unix(1, 0))}
		}},
		{"Tail", func(h Host, w string) result {
			tl, err := h.Tail(ctx, w+"/d/f", true)
			if err != nil {
				return result{nil, err}
			}
			defer tl.Close()
			it, _ := tl.Next(ctxTimeout(t, 300*time.Millisecond))
			return result{[]byte(it.Line), nil}
		}},
		{"Watch", func(h Host, w string) result {
			wt, err := h.Watch(ctx, w+"/d", false)
			if err != nil {
				return result{nil, err}
			}
			defer wt.Close()
			return result{nil, errors.New("watch started")}
		}},
	}
	// Remove holds the parent before it is judged (to see whether a
	// recursive remove is a tree), so it may act on the inside file it
	// judged rather than refuse.
	held := map[string]bool{"Remove": true}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			f := newSwapFixture(t)
			before := fingerprint(t, f.o)
			r := op.run(NewOS(f), f.w)
			if f.swapped == "" {
				t.Fatal("the fixture never swapped: the op was not judged on a path inside w")
			}
			if strings.Contains(string(r.data), outsideMark) || strings.Contains(string(r.data), strings.ToLower(outsideMark)) {
				t.Errorf("read the outside: %q", r.data)
			}
			if r.err == nil && held[op.name] {
				if _, err := os.Lstat(f.w + "/d.orig/f"); err == nil {
					t.Error("succeeded, yet the inside file it judged is still there")
				}
			} else if r.err == nil {
				t.Errorf("succeeded after the swap (data %q)", r.data)
			} else if !errors.Is(r.err, ErrDenied) && !errors.Is(r.err, ErrRaced) {
				t.Errorf("err = %v; want denied or raced", r.err)
			}
			if after := fingerprint(t, f.o); after != before {
				t.Errorf("the outside changed:\nbefore\n%s\nafter\n%s", before, after)
			}
		})
	}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestHeldGivesUp checks the retry bound: a path that is a symlink at
// every open after being judged symlink-free is tried maxRaceRetries times
// and fails with ErrRaced, having read nothing.
func TestHeldGivesUp(t *testing.T) {
	f := newSwapFixture(t)
	f.endless = true
	_, err := NewOS(f).ReadFile(context.Background(), f.w+"/x")
	if !errors.Is(err, ErrRaced) {
		t.Fatalf("err = %v; want ErrRaced", err)
	}
	if f.calls != maxRaceRetries {
		t.Errorf("judged %d times; want %d", f.calls, maxRaceRetries)
	}
}

// TestHeldOpsOnPlainTrees checks that a gated host's held operations do
// what the ungated ones do on a tree nobody disturbs.
func TestHeldOpsOnPlainTrees(t *testing.T) {
	ctx := context.Background()
	gate := AuthorizerFunc(func(context.Context, Op) error { return nil })
	run := func(h Host, dir string) string {
		var log []string
		note := func(what string, err error) { log = append(log, fmt.Sprintf("%s: %v", what, err)) }
		note("mkdir", h.MkdirAll(ctx, dir+"/a/b/c"))
		note("write", h.WriteFile(ctx, dir+"/a/f", []byte("one\n"), false))
		note("append", h.WriteFile(ctx, dir+"/a/f", []byte("two\n"), true))
		d, err := h.ReadFile(ctx, dir+"/a/f")
		note("read "+string(d), err)
		note("symlink", h.Symlink(ctx, "f", dir+"/a/l"))
		d, err = h.ReadFile(ctx, dir+"/a/l")
		note("read via link "+string(d), err)
		fi, err := h.Lstat(ctx, dir+"/a/l")
		note(fmt.Sprintf("lstat %v", fi != nil && fi.Mode()&fs.ModeSymlink != 0), err)
		fi, err = h.Stat(ctx, dir+"/a/l")
		note(fmt.Sprintf("stat %v", fi != nil && fi.Mode().IsRegular() && fi.Size() == 8), err)
		note("link", h.Link(ctx, dir+"/a/f", dir+"/a/h"))
		note("copy", h.Copy(ctx, dir+"/a", dir+"/c", true))
		d, err = h.ReadFile(ctx, dir+"/c/l")
		note("copied link "+string(d), err)
		note("rename", h.Rename(ctx, dir+"/c/h", dir+"/c/b/h2"))
		note("chtimes", h.Chtimes(ctx, dir+"/c/b/h2", time.Unix(5, 0), time.Unix(7, 0)))
		fi, err = h.Stat(ctx, dir+"/c/b/h2")
		note(fmt.Sprintf("mtime %d", fi.ModTime().Unix()), err)
		es, err := h.ReadDir(ctx, dir+"/c")
		var names []string
		for _, e := range es {
			i, _ := e.Info()
			names = append(names, fmt.Sprintf("%s/%v/%d", e.Name(), e.Type(), i.Size()))
		}
		note("readdir "+strings.Join(names, ","), err)
		ms, err := h.Glob(ctx, dir, "**/h*", false)
		for i := range ms {
			ms[i] = strings.TrimPrefix(ms[i], dir)
		}
		note("glob "+strings.Join(ms, ","), err)
		note("remove missing", h.Remove(ctx, dir+"/nope", false))
		note("remove dir not recursive", h.Remove(ctx, dir+"/c", false))
		note("remove tree", h.Remove(ctx, dir+"/c", true))
		_, err = h.Stat(ctx, dir+"/c")
		note("gone", err)
		out := strings.Join(log, "\n")
		return strings.ReplaceAll(out, dir, "DIR")
	}
	plain := run(NewOS(AllowAll), t.TempDir())
	held := run(NewOS(gate), t.TempDir())
	if plain != held {
		t.Errorf("held operations differ from plain ones:\nplain\n%s\nheld\n%s", plain, held)
	}
	if !strings.Contains(held, "read one\ntwo\n") || !slices.Contains(strings.Split(held, "\n"), "gone: stat DIR/c: no such file or directory") {
		t.Errorf("unexpected log:\n%s", held)
	}
}

// TestHeldRunsThePlainSuite runs the host's file tests, written against
// an ungated host, through the held operations: they must not tell the
// difference.
func TestHeldRunsThePlainSuite(t *testing.T) {
	heldAlways.Store(true)
	defer heldAlways.Store(false)
	for name, test := range map[string]func(*testing.T){
		"FileRoundTrip": TestFileRoundTrip, "Remove": TestRemove, "Rename": TestRename,
		"CopyFile": TestCopyFile, "CopyTree": TestCopyTree, "LinkAndChtimes": TestLinkAndChtimes,
		"ReadFileBounded": TestReadFileBounded, "CopyEndlessSourceBounded": TestCopyEndlessSourceBounded,
		"Glob": TestGlob, "GlobAbsolute": TestGlobAbsolute, "GlobCancelled": TestGlobCancelled,
		"WatchReportsChanges": TestWatchReportsChanges, "TailFollowsLines": TestTailFollowsLines,
		"TailFromStartDrops": TestTailFromStartDrops, "WatchAndTailAskTheGate": TestWatchAndTailAskTheGate,
		"GateSeesRealTarget": TestGateSeesRealTarget, "DenyBeforeEffect": TestDenyBeforeEffect,
		"CancelledContextRefuses": TestCancelledContextRefuses,
	} {
		t.Run(name, test)
	}
}

// TestTailRotationIsJudged: a tail reopens its file when it is replaced
// (rotation). On a gated host the new file is judged and opened like the
// first: a rotation to a symlink pointing outside the grant is never
// followed, while a rotation to a new file inside is.
func TestTailRotationIsJudged(t *testing.T) {
	f := newSwapFixture(t)
	f.swapped = "none" // the gate only judges here; the test does the swaps
	log := f.w + "/log"
	if err := os.WriteFile(log, []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl, err := NewOS(f).Tail(context.Background(), log, true)
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	next := func() string {
		it, err := tl.Next(ctxTimeout(t, 10*time.Second))
		if err != nil {
			t.Fatalf("tail: %v", err)
		}
		return it.Line
	}
	if got := next(); got != "first" {
		t.Fatalf("first line %q", got)
	}
	// Rotate to a symlink pointing out, and write there; give the tail a
	// few polls to see it (a shorter wait only weakens the test).
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.o+"/x", log); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.o+"/x", []byte(outsideMark+" rotated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * tailPoll)
	// Rotate to a new file inside: that one is followed.
	if err := os.WriteFile(f.w+"/log.new", []byte("after\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(f.w+"/log.new", log); err != nil {
		t.Fatal(err)
	}
	for {
		line := next()
		if strings.Contains(line, outsideMark) {
			t.Fatalf("the tail followed the rotation outside: %q", line)
		}
		if line == "after" {
			return
		}
	}
}

// switchGate allows everything and says it is unrestricted while free is
// set, recording the ops it was asked.
type switchGate struct {
	free bool
	ops  []Op
}

func (g *switchGate) Unrestricted() bool { return g.free }
func (g *switchGate) Authorize(_ context.Context, op Op) error {
	g.ops = append(g.ops, op)
	return nil
}

// TestUnrestrictedGateSkipsResolution: an Authorizer that says it is
// unrestricted (the kernel owner's session gate) is still asked about
// every op but gets no resolved path, as AllowAll; once it narrows, ops
// are resolved and held again.
func TestUnrestrictedGateSkipsResolution(t *testing.T) {
	f := newSwapFixture(t)
	g := &switchGate{free: true}
	h := NewOS(g)
	ctx := context.Background()
	if _, err := h.ReadFile(ctx, f.w+"/x"); err != nil {
		t.Fatal(err)
	}
	if len(g.ops) != 1 || g.ops[0].Real != "" {
		t.Fatalf("unrestricted: ops %+v; want one, unresolved", g.ops)
	}
	g.free, g.ops = false, nil
	if _, err := h.ReadFile(ctx, f.w+"/x"); err != nil {
		t.Fatal(err)
	}
	if len(g.ops) != 1 || g.ops[0].Real != f.w+"/x" {
		t.Fatalf("narrowed: ops %+v; want one with Real", g.ops)
	}
	if !NewOS(g).(*OS).held() {
		t.Error("a narrowed gate does not act through held descriptors")
	}
}
