package eval

import (
	"context"
	"fmt"
	"path/filepath"
)

// Enter makes dir the session's working directory from outside any
// evaluation, as `cd DIR` would: dir must be absolute and an existing
// directory the session's host lets it look at (the gate's fs_read), else
// the directory stays and the error says why. The previous directory
// becomes the one `cd -` returns to. An evaluation running meanwhile
// keeps the directory it started in (see keepState).
func (in *Interp) Enter(ctx context.Context, dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("%s is not an absolute directory", dir)
	}
	dir = filepath.Clean(dir)
	fi, err := in.host.Stat(ctx, dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	in.stateMu.Lock()
	defer in.stateMu.Unlock()
	if in.dir != dir {
		in.oldpwd, in.dir = in.dir, dir
	}
	return nil
}
