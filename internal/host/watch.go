package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// LiveQueue is how many items a watch or a tail holds for a consumer that
// is slower than the changes it follows. Beyond it items are dropped and
// the drop is reported in order (a coalesced event, a dropped-lines count),
// never silently and never by growing.
const LiveQueue = 64

// maxWatchedDirs bounds the directories one recursive watch follows (each
// is an inotify watch, a limited kernel resource).
const maxWatchedDirs = 8192

// MaxLive bounds the watches and tails one host has running at once.
const MaxLive = 256

// ErrTooManyLive is returned by Watch and Tail when MaxLive are running.
// (The number is written out, not formatted by a package initialiser at
// every start; TestLimitErrorsNameTheirLimits holds it to MaxLive.)
var ErrTooManyLive = errors.New("more than 256 watches and tails running: close streams no longer needed")

// takeLive reserves one of the host's live slots; release gives it back.
func (o *OS) takeLive() (release func(), err error) {
	if o.live.Add(1) > MaxLive {
		o.live.Add(-1)
		return nil, ErrTooManyLive
	}
	var once sync.Once
	return func() { once.Do(func() { o.live.Add(-1) }) }, nil
}

// liveSet is the watches and tails a host has running, so that CloseLive
// can end them when the session using the host closes.
type liveSet struct {
	mu sync.Mutex
	m  map[io.Closer]struct{}
}

// trackLive records c as running; the returned func forgets it.
func (o *OS) trackLive(c io.Closer) (untrack func()) {
	o.running.mu.Lock()
	if o.running.m == nil {
		o.running.m = map[io.Closer]struct{}{}
	}
	o.running.m[c] = struct{}{}
	o.running.mu.Unlock()
	return func() {
		o.running.mu.Lock()
		delete(o.running.m, c)
		o.running.mu.Unlock()
	}
}

// CloseLive closes every watch and tail the host has running, giving
// back their slots and inotify watches; a consumer still reading one sees
// it closed.
func (o *OS) CloseLive() {
	o.running.mu.Lock()
	cs := make([]io.Closer, 0, len(o.running.m))
	for c := range o.running.m {
		cs = append(cs, c)
	}
	o.running.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

// both returns a func calling a then b.
func both(a, b func()) func() { return func() { a(); b() } }

// ErrWatchTooBig is returned by Watch for a tree with more directories
// than one watch follows.
// (Written out: TestLimitErrorsNameTheirLimits holds it to maxWatchedDirs.)
var ErrWatchTooBig = errors.New("watch: more than 8192 directories")

// FSEvent is one change seen by a Watch.
type FSEvent struct {
	Path string    // the path that changed; the watched root for a coalesced event
	Kind string    // "created", "modified" or "removed"
	Time time.Time // when the watch saw it
	// Coalesced marks an event standing for changes dropped while the
	// queue was full: rescan what matters.
	Coalesced bool
}

// Watcher is a running filesystem watch.
type Watcher interface {
	// Next blocks until the next event, ctx's end, or the watch's failure.
	Next(ctx context.Context) (FSEvent, error)
	// TryNext returns the next event if one is waiting (ok), without
	// blocking.
	TryNext() (e FSEvent, ok bool, err error)
	// Close stops the watch; it is safe to call more than once.
	Close() error
}

// Watch follows changes to root (fs_read root): a file, or a directory and
// its entries, with recursive its whole tree (directories created later
// included). It holds at most LiveQueue events; beyond that it drops them
// and owes one coalesced event, delivered once the queue has drained.
func (o *OS) Watch(ctx context.Context, root string, recursive bool) (Watcher, error) {
	real, verify := root, false
	if o.held() {
		// Watch the judged real path, and check each directory added
		// against a held descriptor (see addOne).
		var err error
		if real, err = o.judge(ctx, Op{Effect: FSRead, Target: root, Tree: recursive}, true); err != nil {
			return nil, err
		}
		verify = true
	} else if err := o.authorize(ctx, Op{Effect: FSRead, Target: root, Tree: recursive}); err != nil {
		return nil, err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, renamePath(err, root)
	}
	release, err := o.takeLive()
	if err != nil {
		return nil, err
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		release()
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	fw := &fsWatch{w: w, root: root, real: real, verify: verify, recursive: recursive && fi.IsDir(), now: o.now, release: release,
		notify: make(chan struct{}, 1), done: make(chan struct{})}
	if err := fw.add(real); err != nil {
		w.Close()
		release()
		return nil, err
	}
	fw.release = both(o.trackLive(fw), release)
	go fw.run()
	return fw, nil
}

type fsWatch struct {
	w         *fsnotify.Watcher
	root      string
	real      string // the path watched: root, or its judged real path on a gated host
	verify    bool   // a gated host: check every directory added (addOne)
	recursive bool
	now       func() time.Time
	release   func() // gives back the host's live slot
	dirs      int    // directories added (recursive)

	mu     sync.Mutex
	queue  []FSEvent
	owed   bool  // events were dropped: a coalesced event is due
	err    error // the watch failed or was closed
	notify chan struct{}

	done      chan struct{}
	closeOnce sync.Once
}

// addOne watches one path. On a gated host the path must be free of
// symlinks and name the same file just before and just after the watch is
// added; otherwise the watch is taken back and the add refused (a symlink
// swapped in for that instant alone is the window this leaves: inotify
// offers no way to refuse following one). What a watch shows is names
// and kinds of changes, never content.
func (fw *fsWatch) addOne(p string) error {
	if !fw.verify {
		return fw.w.Add(p)
	}
	before, err := heldIdentity(p)
	if errors.Is(err, errRace) {
		return &fs.PathError{Op: "watch", Path: fw.display(p), Err: ErrRaced}
	}
	if err != nil {
		return renamePath(err, fw.display(p))
	}
	if err := fw.w.Add(p); err != nil {
		return err
	}
	after, err := heldIdentity(p)
	if err != nil || after != before {
		_ = fw.w.Remove(p)
		return &fs.PathError{Op: "watch", Path: fw.display(p), Err: ErrRaced}
	}
	return nil
}

// display is the path an event reports: the watched real path spelled
// from the root the caller named.
func (fw *fsWatch) display(p string) string {
	if fw.real == fw.root {
		return p
	}
	if p == fw.real {
		return fw.root
	}
	if rest, ok := strings.CutPrefix(p, strings.TrimSuffix(fw.real, "/")+"/"); ok {
		return filepath.Join(fw.root, rest)
	}
	return p
}

// add watches dir, and with recursive every directory beneath it.
func (fw *fsWatch) add(dir string) error {
	if !fw.recursive {
		return fw.addOne(dir)
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // unreadable below the root: skip, as a shell would
		}
		if !d.IsDir() {
			return nil
		}
		if fw.dirs++; fw.dirs > maxWatchedDirs {
			return ErrWatchTooBig
		}
		if err := fw.addOne(p); err != nil {
			if p != dir && fw.verify {
				return nil // changed under the walk: skip it, as an unreadable one
			}
			return fmt.Errorf("watch %s: %w", fw.display(p), err)
		}
		return nil
	})
}

func (fw *fsWatch) run() {
	for {
		select {
		case <-fw.done:
			return
		case ev, ok := <-fw.w.Events:
			if !ok {
				fw.fail(errors.New("watch closed"))
				return
			}
			fw.handle(ev)
		case err, ok := <-fw.w.Errors:
			if !ok {
				fw.fail(errors.New("watch closed"))
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				fw.drop() // the kernel's queue overflowed: events were lost
				continue
			}
			fw.fail(err)
			return
		}
	}
}

func (fw *fsWatch) handle(ev fsnotify.Event) {
	kind := ""
	switch {
	case ev.Has(fsnotify.Create):
		kind = "created"
		if fw.recursive {
			if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
				if err := fw.add(ev.Name); errors.Is(err, ErrWatchTooBig) {
					fw.fail(err)
					return
				}
			}
		}
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		kind = "removed"
	case ev.Has(fsnotify.Write), ev.Has(fsnotify.Chmod):
		kind = "modified"
	default:
		return
	}
	fw.push(FSEvent{Path: fw.display(ev.Name), Kind: kind, Time: fw.now()})
}

func (fw *fsWatch) push(e FSEvent) {
	fw.mu.Lock()
	// Once an event is dropped, later ones fold into the coalesced event
	// too until it is delivered, so it stands in order where the gap began.
	if fw.owed || len(fw.queue) >= LiveQueue {
		fw.owed = true
	} else {
		fw.queue = append(fw.queue, e)
	}
	fw.mu.Unlock()
	fw.wake()
}

func (fw *fsWatch) drop() {
	fw.mu.Lock()
	fw.owed = true
	fw.mu.Unlock()
	fw.wake()
}

func (fw *fsWatch) fail(err error) {
	fw.mu.Lock()
	if fw.err == nil {
		fw.err = err
	}
	fw.mu.Unlock()
	fw.wake()
}

func (fw *fsWatch) wake() {
	select {
	case fw.notify <- struct{}{}:
	default:
	}
}

func (fw *fsWatch) TryNext() (FSEvent, bool, error) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	switch {
	case len(fw.queue) > 0:
		e := fw.queue[0]
		fw.queue = fw.queue[1:]
		if len(fw.queue) == 0 {
			fw.queue = nil // let the backing array go
		}
		return e, true, nil
	case fw.owed:
		fw.owed = false
		return FSEvent{Path: fw.root, Kind: "modified", Time: fw.now(), Coalesced: true}, true, nil
	case fw.err != nil:
		return FSEvent{}, false, fw.err
	}
	return FSEvent{}, false, nil
}

func (fw *fsWatch) Next(ctx context.Context) (FSEvent, error) {
	return waitLive(ctx, fw.notify, fw.TryNext)
}

// waitLive blocks until try yields an item or an error, waking on notify
// (signalled whenever a live source's queue changes), or until ctx ends.
func waitLive[T any](ctx context.Context, notify <-chan struct{}, try func() (T, bool, error)) (T, error) {
	for {
		if it, ok, err := try(); ok || err != nil {
			return it, err
		}
		select {
		case <-notify:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
}

func (fw *fsWatch) Close() error {
	var err error
	fw.closeOnce.Do(func() {
		close(fw.done)
		err = fw.w.Close()
		fw.release()
		fw.fail(errors.New("watch closed"))
	})
	return err
}

// GlobWatch returns the directory a watch of a glob pattern follows (its
// literal leading segments, relative to dir), a test for the paths beneath
// it that the pattern matches, with the rules of Glob, and whether matches
// can lie deeper than the root's own entries (the watch must then be
// recursive).
func GlobWatch(dir, pattern string, hidden bool) (root string, match func(path string) bool, deep bool, err error) {
	p, err := parsePattern(pattern)
	if err != nil {
		return "", nil, false, err
	}
	root = p.root(dir)
	deep = len(p.segs) > 1 || slices.Contains(p.segs, "**")
	return root, func(path string) bool {
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			return false
		}
		return matchSegs(p.segs, strings.Split(filepath.ToSlash(rel), "/"), hidden)
	}, deep, nil
}

// matchSegs matches path segments against pattern segments ("**" spans
// zero or more directories; hidden names need hidden or a dot in the
// pattern, as in Glob).
func matchSegs(segs, parts []string, hidden bool) bool {
	if len(segs) == 0 {
		return len(parts) == 0
	}
	if segs[0] == "**" {
		if len(segs) == 1 {
			return len(parts) > 0 && (hidden || !anyHidden(parts))
		}
		for i := 0; i <= len(parts); i++ {
			if i > 0 && !hidden && strings.HasPrefix(parts[i-1], ".") {
				return false
			}
			if matchSegs(segs[1:], parts[i:], hidden) {
				return true
			}
		}
		return false
	}
	if len(parts) == 0 {
		return false
	}
	if !hidden && strings.HasPrefix(parts[0], ".") && !strings.HasPrefix(segs[0], ".") {
		return false
	}
	if ok, _ := filepath.Match(segs[0], parts[0]); !ok {
		return false
	}
	return matchSegs(segs[1:], parts[1:], hidden)
}

func anyHidden(parts []string) bool {
	for _, p := range parts {
		if strings.HasPrefix(p, ".") {
			return true
		}
	}
	return false
}
