package host

// Held file access: how a gated host acts on exactly what its gate judged.
//
// Judging a path and then opening it by name again is a race: between the
// two, a co-tenant (another session of the same principal, or any process
// that can write inside the grant) can swap a component for a symlink to a
// file outside the grant, and the second resolution follows it. So when
// the host is gated (its Authorizer is neither AllowAll nor DenyAll) every
// filesystem operation runs as
//
//  1. resolve the target to its real path (realPath: every symlink
//     expanded, relative targets against the link's own directory, at most
//     maxSymlinkHops links) and hand it to the gate as Op.Real;
//  2. act on that real path only, opened with openat2 and
//     RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS: a path without symlinks
//     resolves to the very components the gate judged, and a symlink
//     swapped in anywhere fails the open (ELOOP) instead of being
//     followed. Name operations (unlink, rename, mkdir, symlink, link,
//     utimes) open the parent directory that way and use the *at system
//     call on the final name, never following it; tree operations walk
//     from held directory descriptors;
//  3. on such a failure resolve and judge again, at most maxRaceRetries
//     times, then fail with ErrRaced.
//
// The owner's ungated host (AllowAll) keeps the plain calls of package os:
// it has nothing to judge. Builds other than Linux keep the old behaviour
// (judge the resolved path, then act on the path by name); see
// held_other.go.

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"sync/atomic"
)

// maxRaceRetries bounds how often one operation re-resolves and re-judges
// its path after finding it changed between the judgment and the act.
const maxRaceRetries = 8

// maxCopyDepth bounds how deep a gated recursive copy descends (each level
// holds two directory descriptors).
const maxCopyDepth = 256

// ErrRaced is returned (in an *fs.PathError) when a path kept changing
// between its judgment and the act maxRaceRetries times in a row.
var ErrRaced = errors.New("path changed while it was being checked; gave up")

// ErrNoHeldOpen is returned when the running kernel cannot open a judged
// path without following symlinks (openat2 needs Linux 5.6): a gated host
// then refuses rather than act on a path that may have changed.
var ErrNoHeldOpen = errors.New("the kernel lacks openat2, needed for gated file access")

// errRace marks an attempt that met a symlink or a rename where its
// judgment saw none; the operation starts over.
var errRace = errors.New("path changed after it was judged")

// held reports whether o acts through held descriptors: a gated host on a
// platform that can (an Authorizer that says it is Unrestricted gates
// nothing for now).
func (o *OS) held() bool {
	return heldFS && (o.auth != AllowAll && o.auth != DenyAll && !o.unrestricted() || heldAlways.Load())
}

// heldAlways makes every host act through held descriptors, ungated ones
// too: tests run the plain suite through the held operations with it.
var heldAlways atomic.Bool

// resolveOp checks ctx and fills in op.Real, returning the path the
// operation must act on (op.Real, or the cleaned target when it was not
// resolved: a relative target, which every real gate refuses).
func resolveOp(ctx context.Context, op *Op, follow bool) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if err := resolveFor(op, follow); err != nil {
		return "", err
	}
	if op.Real != "" {
		return op.Real, nil
	}
	return filepath.Clean(op.Target), nil
}

// judge resolves op and asks the gate, returning the path to act on.
func (o *OS) judge(ctx context.Context, op Op, follow bool) (string, error) {
	real, err := resolveOp(ctx, &op, follow)
	if err != nil {
		return "", err
	}
	o.lasting(op.Effect)
	if err := o.auth.Authorize(ctx, op); err != nil {
		return "", err
	}
	return real, nil
}

// retryHeld runs attempt until it ends other than in errRace, at most
// maxRaceRetries times.
func retryHeld(op, path string, attempt func() error) error {
	for range maxRaceRetries {
		if err := attempt(); !errors.Is(err, errRace) {
			return err
		}
	}
	return &fs.PathError{Op: op, Path: path, Err: ErrRaced}
}

// renamePath names path (the one the caller gave) in an *fs.PathError
// about the real path the host opened.
func renamePath(err error, path string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return err
}
