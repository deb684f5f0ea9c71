//go:build linux

package hostile

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// The check-then-open races of issue 22: a token principal whose fs grants
// are one directory W (the kernel's working directory) runs a filesystem
// builtin in a loop while its co-tenants swap W/x and W/d between symlinks
// to inside targets and symlinks to an outside directory O, thousands of
// times. The gate judges each path's real target, so a swap that lands
// before the judgment is refused; one that lands between the judgment and
// the act must be refused too. Every test asserts that no attempt read
// the outside marker and that O is byte-for-byte, mode and mtime what it
// was.

// raceMarker is in the content of every outside file and the name of one
// file only the outside directory has.
const raceMarker = "OUTSIDEMARK7q3"

// raceAttempts is how often each builtin is tried per test, in batches of
// raceBatch attempts per exec.
const (
	raceAttempts = 2000
	raceBatch    = 250
)

// raceCase is one builtin under the swap.
type raceCase struct {
	name string
	// op is one attempt: a shoal expression (run inside `try`) whose
	// string value must never contain bad.
	op  string
	bad string
	// session: a second session of the same principal swaps W/x with the
	// kernel's own ln -s, rm and mv (the test process swaps only W/d).
	session bool
	// churn: the test process, as the owner working outside the grant,
	// keeps creating and removing a marked file in O/d, so a watch that
	// landed outside would report it (O/d's mtime is restored after).
	churn bool
}

// outsideContent is the content of every outside file: the marker, long
// enough that its size tells it from an inside file's ("inside").
var outsideContent = strings.Repeat(raceMarker, 8)

func raceCases() []raceCase {
	size := fmt.Sprintf("%db", len(outsideContent))
	return []raceCase{
		{name: "cat", op: `(cat x).out.str()`, bad: raceMarker},
		{name: "cat-cotenant-session", op: `(cat x).out.str()`, bad: raceMarker, session: true},
		{name: "cat-through-dir", op: `(cat d/sub/g).out.str()`, bad: raceMarker},
		{name: "head", op: `(head d/f 1).out.join("")`, bad: raceMarker},
		{name: "stat", op: `"{(stat d/f).size}"`, bad: size},
		{name: "ls", op: `(ls d).map(r => r.path.str()).join(" ")`, bad: raceMarker},
		{name: "glob", op: `(stat d/*).map(r => r.path.str()).join(" ")`, bad: raceMarker},
		{name: "tail", op: `tail("x", from_start: true).take(1).collect().join("")`, bad: raceMarker},
		{name: "redirect", op: `echo (i) > x; ""`},
		{name: "append", op: `echo (i) >> d/f; ""`},
		{name: "save", op: `save x "saved"; ""`},
		{name: "cp-from", op: `cp x copied; (cat copied).out.str()`, bad: raceMarker},
		{name: "cp-into", op: `cp src/a d/copied; ""`},
		{name: "cp-r", op: `cp -r d tree; (cat tree/f).out.str()`, bad: raceMarker},
		{name: "mv", op: `mv d/f moved; mv moved ind/f; ""`},
		{name: "rm", op: `rm --permanent d/f; save ind/f "inside"; ""`},
		{name: "rm-r", op: `rm --permanent -r d/sub; mkdir ind/sub; ""`},
		{name: "mkdir", op: `mkdir -p d/made/deeper; ""`},
		{name: "ln", op: `ln d/f hard; let s = (cat hard).out.str(); rm --permanent hard; s`, bad: raceMarker},
		{name: "ln-s", op: `ln -s in/x d/l; rm --permanent ind/l; ""`},
		{name: "touch", op: `touch d/f; ""`},
		{name: "watch", op: `let w = watch("d"); save ind/ev "{i}"; w.take(1).collect().map(r => r.path.str()).join(" ")`, bad: raceMarker, churn: true},
	}
}

func TestHostileFSRaces(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of swaps per builtin through the binary; skipped under -short")
	}
	base, err := os.MkdirTemp("", "hfs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	pol := filepath.Join(base, "policy.toml")
	// The working directory Start makes is the grant (by glob: every hk*
	// temp directory's work); the outside directory is elsewhere.
	w := fmt.Sprintf("%s/hk*/work/**", os.TempDir())
	text := fmt.Sprintf(`[principal."agent:racer"]
opaque = "allow"
[principal."agent:racer".fs]
read = [%q]
write = [%q]
delete = [%q]
`, w, w, w)
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	k := Start(t, Options{Flags: []string{"--policy", pol}})
	token := k.Token(t, "agent:racer")
	for _, rc := range raceCases() {
		t.Run(rc.name, func(t *testing.T) { runRace(t, k, token, rc) })
	}
	k.Alive(t)
}

// raceTree lays out W (inside targets in, ind, src) and the outside
// directory O mirroring it with marked content, and returns O.
func raceTree(t *testing.T, w string) string {
	t.Helper()
	o, err := os.MkdirTemp("", "hfsout")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(o) })
	o, _ = filepath.EvalSymlinks(o)
	for _, e := range []string{"x", "d", "in", "ind", "src", "copied", "tree", "moved", "hard", "s1", "s2"} {
		os.RemoveAll(filepath.Join(w, e))
	}
	files := map[string]string{
		w + "/in/x": "inside\n", w + "/ind/f": "inside\n", w + "/ind/sub/g": "inside\n", w + "/src/a": "inside\n",
		o + "/x": outsideContent, o + "/d/f": outsideContent, o + "/d/sub/g": outsideContent, o + "/d/" + raceMarker: outsideContent,
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Old mtimes, so that a touch through a swapped link shows.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(o, func(p string, _ fs.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
	for name, target := range map[string]string{"x": "in/x", "d": "ind"} {
		if err := os.Symlink(target, filepath.Join(w, name)); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// treePrint is every name, mode, size, mtime and content digest under dir.
func treePrint(t *testing.T, dir string) string {
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

// swapLoop swaps name in w between a symlink to inside (relative) and one
// to outside (absolute), atomically (a new link renamed over the old),
// until stop is closed, counting the swaps it made in count.
func swapLoop(w, name, inside, outside string, stop <-chan struct{}, count *atomic.Int64) {
	tmp := filepath.Join(w, "."+name+".swap")
	n := 0
	for {
		select {
		case <-stop:
			return
		default:
		}
		target := inside
		if n%2 == 1 {
			target = outside
		}
		os.Remove(tmp)
		if os.Symlink(target, tmp) == nil && os.Rename(tmp, filepath.Join(w, name)) == nil {
			n++
			count.Add(1)
		}
		if n%64 == 0 {
			time.Sleep(time.Microsecond) // let the kernel run on a busy machine
		}
	}
}

func runRace(t *testing.T, k *Kernel, token string, rc raceCase) {
	o := raceTree(t, k.Dir)
	before := treePrint(t, o)
	ctx := Ctx(t)
	victim := k.Attach(t, "victim-"+rc.name, token)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var swaps atomic.Int64
	for _, s := range [][3]string{{"x", "in/x", o + "/x"}, {"d", "ind", o + "/d"}} {
		if rc.session && s[0] == "x" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			swapLoop(k.Dir, s[0], s[1], s[2], stop, &swaps)
		}()
	}
	if rc.churn {
		od := o + "/d"
		fi, err := os.Stat(od)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer os.Chtimes(od, fi.ModTime(), fi.ModTime())
			churn := filepath.Join(od, raceMarker+"-churn")
			for n := 0; ; n++ {
				select {
				case <-stop:
					os.Remove(churn)
					return
				default:
				}
				os.WriteFile(churn, []byte(raceMarker), 0o644)
				os.Remove(churn)
				if n%16 == 0 {
					time.Sleep(50 * time.Microsecond)
				}
			}
		}()
	}
	var sessionErr atomic.Value
	var sawOut, sawIn atomic.Int64 // the session's swaps, as the test process sees W/x
	if rc.session {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				switch target, _ := os.Readlink(filepath.Join(k.Dir, "x")); target {
				case o + "/x":
					sawOut.Add(1)
				case "in/x":
					sawIn.Add(1)
				}
				time.Sleep(50 * time.Microsecond)
			}
		}()
		// The same principal's second session swaps W/x with the kernel's
		// own builtins; its outside target is computed, so its plan
		// passes (opaque = "allow") and only the gate stands.
		attacker := k.Attach(t, "attacker-"+rc.name, token)
		src := fmt.Sprintf(`let out = %q
(0..200).each(i => {
  try { rm --permanent s1 } catch { }
  try { ln -s (out) s1 } catch { }
  try { rm --permanent x } catch { }
  try { mv s1 x } catch { }
  try { rm --permanent s2 } catch { }
  try { ln -s in/x s2 } catch { }
  try { rm --permanent x } catch { }
  try { mv s2 x } catch { }
})
"done"`, o+"/x")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := attacker.Exec(ctx, client.ExecParams{Src: src}); err != nil {
					sessionErr.Store(err.Error())
					return
				}
			}
		}()
	}

	leaks, fails := 0, 0
	// Each exec answers "leaks/failures/codes": how many attempts saw
	// bad, how many raised, and the distinct codes they raised.
	src := fmt.Sprintf(`let rs = (0..%d).map(i => try { %s } catch e { "err:" + e.code })
let errs = rs.where(s => s.starts_with("err:"))
"{rs.where(s => %q != "" && s.contains(%q)).len()}/{errs.len()}/{errs.uniq().join(",")}"`,
		raceBatch, rc.op, rc.bad, rc.bad)
	start := time.Now()
	codes := map[string]bool{}
	attempts := 0
	// Run at least raceAttempts attempts and until as many swaps were
	// made, within a bound.
	for attempts < raceAttempts || (swaps.Load() < raceAttempts && attempts < 10*raceAttempts) {
		attempts += raceBatch
		res, err := victim.Exec(ctx, client.ExecParams{Src: src})
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("exec: %v", err)
		}
		parts := strings.SplitN(strings.Trim(res.Render, `"`), "/", 3)
		if len(parts) != 3 {
			parts = []string{"?", "?", ""}
		}
		nl, err1 := strconv.Atoi(parts[0])
		nf, err2 := strconv.Atoi(parts[1])
		for _, c := range strings.Split(parts[2], ",") {
			if c != "" {
				codes[c] = true
			}
		}
		if err1 != nil || err2 != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("answer %q", res.Render)
		}
		leaks += nl
		fails += nf
	}
	close(stop)
	wg.Wait()
	if e := sessionErr.Load(); e != nil {
		t.Errorf("the co-tenant session failed: %v", e)
	}
	if rc.session {
		t.Logf("W/x seen pointing out %d times, in %d times", sawOut.Load(), sawIn.Load())
		if sawOut.Load() == 0 || sawIn.Load() == 0 {
			t.Error("the co-tenant session's swaps were never seen")
		}
	}
	t.Logf("%d attempts in %v, %d refused or failed (%v), %d swaps", attempts, time.Since(start).Round(time.Millisecond), fails, keys(codes), swaps.Load())
	if leaks > 0 {
		t.Errorf("%d of %d attempts read the outside (%q)", leaks, attempts, rc.bad)
	}
	if after := treePrint(t, o); after != before {
		t.Errorf("the outside directory changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	if swaps.Load() < raceAttempts {
		t.Errorf("only %d swaps during %d attempts: the race was hardly run", swaps.Load(), attempts)
	}
	if fails == attempts {
		t.Errorf("every attempt failed: the builtin never ran inside the grant")
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
