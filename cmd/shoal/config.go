package main

import (
	"fmt"
	"io"
	"os"

	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/value"
)

// languageConfig is the snapshot of the layered configuration (system,
// user, nearest project file, SHOAL_* overrides, NO_COLOR) that a session
// started in dir sees as the config namespace. Interactive sessions,
// scripts, stdin and -c all inject it; an error stops startup.
func languageConfig(dir string) (*value.Record, error) {
	snap, _, err := namespaces.LoadConfig(namespaces.ConfigSource{
		Getenv:   os.LookupEnv,
		Cwd:      dir,
		ReadFile: readConfigFile,
	})
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	return snap, nil
}

// readConfigFile reads at most max+1 bytes of a configuration file, so
// the loader can tell one too large from one that fits.
func readConfigFile(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("is a directory")
	}
	return io.ReadAll(io.LimitReader(f, max+1))
}
