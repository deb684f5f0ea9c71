package auth

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvStore names the environment variable that overrides the store path.
const EnvStore = "SHOAL_TOKEN_STORE"

// StoreFile is the store's file name inside a state directory.
const StoreFile = "tokens.json"

// DefaultStatePath returns the default state directory: $XDG_STATE_HOME/shoal
// when XDG_STATE_HOME is an absolute path, else ~/.local/state/shoal. It does
// not create the directory.
func DefaultStatePath() (string, error) {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "shoal"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("auth: locating the state directory: %w", err)
	}
	if home == "" {
		return "", errors.New("auth: locating the state directory: no home directory")
	}
	return filepath.Join(home, ".local", "state", "shoal"), nil
}

// StorePath returns the token store path inside stateDir.
func StorePath(stateDir string) string {
	return filepath.Join(stateDir, StoreFile)
}

// ResolveStorePath returns the store path the kernel and shoal-token agree
// on: $SHOAL_TOKEN_STORE when set, else StorePath(stateDir), with an empty
// stateDir meaning DefaultStatePath().
func ResolveStorePath(stateDir string) (string, error) {
	if p := os.Getenv(EnvStore); p != "" {
		return p, nil
	}
	if stateDir == "" {
		d, err := DefaultStatePath()
		if err != nil {
			return "", err
		}
		stateDir = d
	}
	return StorePath(stateDir), nil
}

// EnsureDir creates dir (and missing parents) with mode 0700. An existing
// directory is left as it is.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("auth: creating %s: %w", dir, err)
	}
	return nil
}
