package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/value"
)

// languageConfig is the snapshot of the layered configuration (system,
// user, nearest trusted project file, SHOAL_* overrides, NO_COLOR) that a
// session started in dir sees as the config namespace. Interactive sessions,
// scripts, stdin and -c all inject it; an error stops startup.
func languageConfig(dir string, tr *cliTrust) (*value.Record, error) {
	base, err := defaultsSnapshot(configDefaults)
	if err != nil {
		return nil, fmt.Errorf("configuration defaults: %w", err)
	}
	src := namespaces.ConfigSource{Getenv: os.LookupEnv, Cwd: dir, Base: base}
	_, _, candidates := namespaces.ConfigPaths(src)
	project := make(map[string]bool, len(candidates))
	for _, p := range candidates {
		project[p] = true
	}
	// A project .shoal.toml is a layer only from a directory the person
	// trusted (trust.go).
	src.ReadFile = tr.readConfig(project)
	snap, _, err := namespaces.LoadConfig(src)
	if err != nil {
		return nil, fmt.Errorf("configuration: %s", configProblem(err))
	}
	return snap, nil
}

// configDefaults is the lowest layer of the snapshot: the typed defaults,
// encoded by their toml tags. Only the format version is fixed here; the
// typed configuration of the shoal command (prompt, history, render,
// editor, ...) belongs in its place, so config shows every default the
// command applies.
var configDefaults any = struct {
	Version int `toml:"version"`
}{Version: 1}

// defaultsSnapshot encodes typed defaults (a struct with toml tags) as the
// record the config namespace shows.
func defaultsSnapshot(v any) (*value.Record, error) {
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return nil, err
	}
	return namespaces.DecodeConfig("defaults", []byte(b.String()))
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
