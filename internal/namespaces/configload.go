package namespaces

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// ConfigSource is what loading the layered configuration may look at. It
// touches nothing itself: the caller supplies the reads.
type ConfigSource struct {
	// Getenv reads one environment variable of the session being started.
	Getenv func(name string) (string, bool)
	// Cwd is the absolute working directory the project search starts in.
	Cwd string
	// ReadFile reads a file of at most max bytes. A missing file is an
	// error matching fs.ErrNotExist (the layer is then absent); a larger
	// one may be cut at max+1 bytes (it is then refused).
	ReadFile func(name string, max int64) ([]byte, error)
	// Base, when set, is the lowest layer (the typed defaults).
	Base *value.Record
}

// ConfigLayer is one configuration file that existed and was merged.
type ConfigLayer struct {
	Path string
	Kind string // "system", "user" or "project"
}

// SystemConfigPath is the system layer's file.
const SystemConfigPath = "/etc/shoal/shoal.toml"

// ConfigPaths lists the file layers in ascending precedence: the system
// file, the user file ($XDG_CONFIG_HOME/shoal/shoal.toml, else
// $HOME/.config/shoal/shoal.toml; none when neither is set) and every
// candidate for the project file (.shoal.toml in Cwd and each parent, the
// nearest first; only the first that exists is a layer).
func ConfigPaths(src ConfigSource) (system, user string, project []string) {
	get := func(k string) string {
		if src.Getenv == nil {
			return ""
		}
		v, _ := src.Getenv(k)
		return v
	}
	if x := get("XDG_CONFIG_HOME"); path.IsAbs(x) {
		user = path.Join(x, "shoal", "shoal.toml")
	} else if h := get("HOME"); path.IsAbs(h) {
		user = path.Join(h, ".config", "shoal", "shoal.toml")
	}
	if path.IsAbs(src.Cwd) {
		d := path.Clean(src.Cwd)
		for range MaxConfigWalk {
			project = append(project, path.Join(d, ".shoal.toml"))
			parent := path.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return SystemConfigPath, user, project
}

// LoadConfig is the resolved configuration the config namespace shows:
// Base, then the system, user and nearest project files deep-merged key
// by key (a later table merges into an earlier one; a later scalar or
// array replaces it whole), then the documented SHOAL_* overrides, then
// NO_COLOR (its presence sets render.color to false). It returns the
// snapshot and the files merged, lowest first. A malformed file, one too
// large, an unreadable one, a version other than 1 and a malformed
// override are errors naming their source.
func LoadConfig(src ConfigSource) (*value.Record, []ConfigLayer, error) {
	snap := src.Base
	if snap == nil {
		snap = value.NewRecord(nil, nil)
	}
	system, user, project := ConfigPaths(src)
	var layers []ConfigLayer
	load := func(p, kind string) (bool, error) {
		if p == "" || src.ReadFile == nil {
			return false, nil
		}
		data, err := src.ReadFile(p, MaxConfigFileBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, &ConfigFileError{Path: p, Err: fmt.Errorf("%s: %w", p, err)}
		}
		if len(data) > MaxConfigFileBytes {
			return false, &ConfigFileError{Path: p, Err: fmt.Errorf("%s: larger than %d bytes", p, MaxConfigFileBytes)}
		}
		rec, err := DecodeConfig(p, data)
		if err != nil {
			return false, &ConfigFileError{Path: p, Data: data, Err: err}
		}
		snap = MergeConfig(snap, rec)
		layers = append(layers, ConfigLayer{Path: p, Kind: kind})
		return true, nil
	}
	if _, err := load(system, "system"); err != nil {
		return nil, nil, err
	}
	if _, err := load(user, "user"); err != nil {
		return nil, nil, err
	}
	for _, p := range project {
		found, err := load(p, "project")
		if err != nil {
			return nil, nil, err
		}
		if found {
			break
		}
	}
	snap, err := applyConfigEnv(snap, src.Getenv)
	if err != nil {
		return nil, nil, err
	}
	return snap, layers, nil
}

// ConfigFileError is a configuration file LoadConfig could not use: its
// path, its bytes when they were read (so a caller can point at the
// place), and what is wrong. Every other LoadConfig error is a malformed
// override in the environment.
type ConfigFileError struct {
	Path string
	Data []byte
	Err  error
}

func (e *ConfigFileError) Error() string { return e.Err.Error() }
func (e *ConfigFileError) Unwrap() error { return e.Err }

// DecodeConfig decodes one configuration file: a TOML document whose
// version, when present, is 1. Errors name the file (and the line for
// malformed TOML).
func DecodeConfig(file string, data []byte) (*value.Record, error) {
	v, err := tomlParse(nil, value.Args{Pos: []value.Value{value.Str(string(data))}})
	if err != nil {
		msg := err.Error()
		var ve *value.Error
		if errors.As(err, &ve) {
			msg = strings.TrimPrefix(ve.Msg, "toml.parse: ")
		}
		return nil, fmt.Errorf("%s: %s", file, msg)
	}
	rec, ok := v.(*value.Record)
	if !ok {
		return nil, fmt.Errorf("%s: not a TOML table", file)
	}
	if ver, ok := rec.Get("version"); ok {
		if n, isInt := ver.(value.Int); !isInt || n != 1 {
			return nil, fmt.Errorf("%s: version: unsupported config version %s (expected 1)", file, value.Inline(ver))
		}
	}
	return rec, nil
}

// MergeConfig deep-merges over into base without changing either: keys of
// over that hold records on both sides merge recursively (to the depth the
// decoder allows), every other key of over replaces base's.
func MergeConfig(base, over *value.Record) *value.Record {
	return mergeDepth(base, over, 0)
}

func mergeDepth(base, over *value.Record, depth int) *value.Record {
	keys := append([]string(nil), base.Keys()...)
	vals := append([]value.Value(nil), base.Values()...)
	at := make(map[string]int, len(keys))
	for i, k := range keys {
		at[k] = i
	}
	for i, k := range over.Keys() {
		v := over.Values()[i]
		j, ok := at[k]
		if !ok {
			at[k] = len(keys)
			keys = append(keys, k)
			vals = append(vals, v)
			continue
		}
		b, bRec := vals[j].(*value.Record)
		o, oRec := v.(*value.Record)
		if bRec && oRec && depth < maxDepth {
			vals[j] = mergeDepth(b, o, depth+1)
		} else {
			vals[j] = v
		}
	}
	return value.NewRecord(keys, vals)
}

// configEnv is the documented table of environment overrides: variable,
// dotted key, and the kind its text is read as. Later rows win over
// earlier ones for the same key, so a legacy alias comes first.
var configEnv = []struct{ name, key, kind string }{
	{"SHOAL_PROMPT", "prompt.template", "str"},
	{"SHOAL_PROMPT_TEMPLATE", "prompt.template", "str"},
	{"SHOAL_HISTORY", "history.enabled", "bool"},
	{"SHOAL_HISTORY_ENABLED", "history.enabled", "bool"},
	{"SHOAL_HISTORY_MAX_ENTRIES", "history.max_entries", "uint"},
	{"SHOAL_HISTORY_FILE", "history.path", "str"},
	{"SHOAL_HISTORY_DEDUP", "history.dedup", "bool"},
	{"SHOAL_RENDER_COLOR", "render.color", "bool"},
	{"SHOAL_RENDER_WIDTH", "render.width", "uint"},
	{"SHOAL_RENDER_PAGING", "render.paging", "str"},
	{"SHOAL_RENDER_PAGER", "render.pager", "str"},
	{"SHOAL_RENDER_ECHO", "render.echo", "str"},
	{"SHOAL_EDITOR_MODE", "editor.mode", "str"},
	{"SHOAL_EDITOR_BRACKETED_PASTE", "editor.bracketed_paste", "bool"},
	{"SHOAL_KERNEL", "kernel.enabled", "bool"},
	{"SHOAL_KERNEL_ENABLED", "kernel.enabled", "bool"},
	{"SHOAL_KERNEL_SESSION", "kernel.session", "str"},
	{"SHOAL_JOURNAL_ENABLED", "journal.enabled", "bool"},
	{"SHOAL_LEASH_POLICY", "leash.policy", "str"},
	{"SHOAL_COMPLETION_FUZZY", "completion.fuzzy", "bool"},
	{"SHOAL_COMPLETION_CASE_INSENSITIVE", "completion.case_insensitive", "bool"},
	{"SHOAL_COMPLETION_MAX_RESULTS", "completion.max_results", "uint"},
	{"SHOAL_COMPLETION_MENU", "completion.menu", "bool"},
}

// applyConfigEnv sets the overrides present in the environment, then
// NO_COLOR.
func applyConfigEnv(snap *value.Record, getenv func(string) (string, bool)) (*value.Record, error) {
	if getenv == nil {
		return snap, nil
	}
	for _, o := range configEnv {
		text, ok := getenv(o.name)
		if !ok {
			continue
		}
		v, err := envConfigValue(text, o.kind)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.name, err)
		}
		snap = setDotted(snap, o.key, v)
	}
	if _, ok := getenv("NO_COLOR"); ok {
		snap = setDotted(snap, "render.color", value.Bool(false))
	}
	return snap, nil
}

// envConfigValue reads an override's text as kind.
func envConfigValue(text, kind string) (value.Value, error) {
	switch kind {
	case "bool":
		switch text {
		case "1", "true", "True", "TRUE", "yes", "on":
			return value.Bool(true), nil
		case "0", "false", "False", "FALSE", "no", "off":
			return value.Bool(false), nil
		}
		return nil, fmt.Errorf("expected a boolean (1, true, yes, on, 0, false, no, off), found %q", text)
	case "uint":
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("expected a non-negative integer, found %q", text)
		}
		return value.Int(n), nil
	}
	return value.Str(text), nil
}

// setDotted sets a two-part key "table.field", making the table when
// absent or not a table.
func setDotted(snap *value.Record, key string, v value.Value) *value.Record {
	table, field, _ := strings.Cut(key, ".")
	inner, _ := snap.Get(table)
	rec, ok := inner.(*value.Record)
	if !ok {
		rec = value.NewRecord(nil, nil)
	}
	return MergeConfig(snap, value.NewRecord([]string{table}, []value.Value{MergeConfig(rec, value.NewRecord([]string{field}, []value.Value{v}))}))
}
