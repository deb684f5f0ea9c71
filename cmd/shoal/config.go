package main

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

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

// defaultsSnapshot is typed defaults (a struct with toml tags) as the
// record the config namespace shows: the record their TOML encoding
// decodes to (a test holds the two equal), built by walking the struct
// rather than encoding and parsing TOML at every start. Plain fields come
// before tables, as in the encoding; booleans, integers, floats, strings,
// lists of them and nested structs are the kinds defaults use.
func defaultsSnapshot(v any) (*value.Record, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("defaults are a %s, not a struct", rv.Kind())
	}
	return defaultsRecord(rv, 0)
}

// defaultsRecord is the struct rv as a record; depth bounds the nesting
// (the struct is ours, but a cycle through a pointer must not recurse).
func defaultsRecord(rv reflect.Value, depth int) (*value.Record, error) {
	if depth > 8 {
		return nil, fmt.Errorf("defaults nested deeper than 8 tables")
	}
	var plain, tables []string
	var plainVals, tableVals []value.Value
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if !f.IsExported() || key == "-" {
			continue
		}
		if key == "" {
			key = f.Name
		}
		if fv := rv.Field(i); fv.Kind() == reflect.Struct {
			rec, err := defaultsRecord(fv, depth+1)
			if err != nil {
				return nil, err
			}
			tables, tableVals = append(tables, key), append(tableVals, rec)
		} else {
			x, err := defaultsScalar(fv, depth)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			plain, plainVals = append(plain, key), append(plainVals, x)
		}
	}
	return value.NewRecord(append(plain, tables...), append(plainVals, tableVals...)), nil
}

// defaultsScalar is a default that is not a table.
func defaultsScalar(fv reflect.Value, depth int) (value.Value, error) {
	if depth > 8 {
		return nil, fmt.Errorf("defaults nested deeper than 8 lists")
	}
	switch fv.Kind() {
	case reflect.Bool:
		return value.Bool(fv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return value.Int(fv.Int()), nil
	case reflect.Float32, reflect.Float64:
		return value.Float(fv.Float()), nil
	case reflect.String:
		return value.Str(fv.String()), nil
	case reflect.Slice, reflect.Array:
		items := make([]value.Value, fv.Len())
		for i := range items {
			if fv.Index(i).Kind() == reflect.Struct {
				return nil, fmt.Errorf("a list of tables is not a supported default")
			}
			x, err := defaultsScalar(fv.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = x
		}
		return value.NewList(items), nil
	}
	return nil, fmt.Errorf("a %s is not a supported default", fv.Kind())
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
