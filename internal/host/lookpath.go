package host

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// LookPath resolves a program name to an absolute path.
//
// A name containing "/" must be absolute; it is checked (fs_read name) and
// returned as is. A bare name is searched in the PATH of env, falling back
// to the host process PATH only when env has none (env_read "PATH"). A hit
// is a regular file, after following symlinks, with an execute bit.
// Relative PATH entries, the empty one included, are skipped: a Host has no
// working directory to resolve them against, and running programs found in
// "." is a classic hijack. A miss is an *exec.Error wrapping
// exec.ErrNotFound.
func (o *OS) LookPath(ctx context.Context, name string, env []string) (string, error) {
	if name == "" {
		return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
	}
	if err := o.authorize(ctx, lookPathOp(name)); err != nil {
		return "", err
	}
	if strings.Contains(name, "/") {
		if !filepath.IsAbs(name) {
			return "", &exec.Error{Name: name, Err: exec.ErrDot}
		}
		if err := executable(name); err != nil {
			return "", &exec.Error{Name: name, Err: err}
		}
		return name, nil
	}
	pathList, ok := lookupEnv(env, "PATH")
	if !ok {
		pathList = os.Getenv("PATH")
	}
	for _, dir := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// lookPathOp is the op LookPath asks for name.
func lookPathOp(name string) Op {
	if strings.Contains(name, "/") {
		return Op{Effect: FSRead, Target: name}
	}
	return Op{Effect: EnvRead, Target: "PATH"}
}

// executable reports nil when p is a regular file with an execute bit.
func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return fs.ErrPermission
	}
	return nil
}

// lookupEnv finds the last KEY=VALUE entry for key, as execve would see it
// after os/exec's deduplication.
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}
