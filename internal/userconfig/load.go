package userconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/shoalgo/shoal/internal/value"
)

// File names under the configuration directory.
const (
	MainFile   = "shoal.toml"
	PromptFile = "prompt.toml"
)

// Error is a configuration that cannot be used: the file, the position
// (Line and Col from 1; 0 when the problem has no one place) and what is
// wrong.
type Error struct {
	File      string
	Line, Col int
	Key       string // the dotted key at fault, when known
	Msg       string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
	} else {
		b.WriteString("config")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Warning is a key the schema does not know: kept out of the
// configuration and reported, never silently accepted.
type Warning struct {
	File      string
	Line, Col int
	Key       string
	// Suggest is a close known key, or "".
	Suggest string
}

func (w Warning) String() string {
	s := fmt.Sprintf("%s:%d:%d: unknown config key `%s`", w.File, w.Line, w.Col, w.Key)
	if w.Suggest != "" {
		s += " (did you mean `" + w.Suggest + "`?)"
	}
	return s
}

// Env is what Load reads of the process: an environment lookup, and the
// home directory.
type Env struct {
	Getenv func(string) string
	Home   string
}

// Dir is the configuration directory: $XDG_CONFIG_HOME/shoal when that is
// an absolute path, else ~/.config/shoal ("" when neither is known).
func Dir(env Env) string {
	if x := env.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "shoal")
	}
	if env.Home == "" {
		return ""
	}
	return filepath.Join(env.Home, ".config", "shoal")
}

// Loaded is the result of Load: the configuration, warnings, and the files
// that were read.
type Loaded struct {
	Config   *Config
	Warnings []Warning
	Sources  []string
}

// Load reads shoal.toml and prompt.toml from Dir(env) over the defaults,
// then the environment overrides (NO_COLOR, SHOAL_* as documented). A
// missing file is no layer; an unreadable or bad one is an *Error.
func Load(env Env) (*Loaded, error) {
	l := &Loaded{Config: Default()}
	dir := Dir(env)
	if dir != "" {
		for _, name := range []string{MainFile, PromptFile} {
			path := filepath.Join(dir, name)
			data, err := readBounded(path)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, &Error{File: path, Msg: err.Error()}
			}
			var ws []Warning
			if name == MainFile {
				ws, err = decodeInto(path, data, l.Config)
				if err == nil {
					err = validate(l.Config, path, data)
				}
			} else {
				ws, err = decodeInto(path, data, &l.Config.Prompt)
				if err == nil {
					err = validatePrompt(&l.Config.Prompt, path, data, "")
				}
			}
			if err != nil {
				return nil, err
			}
			l.addWarnings(ws)
			l.Sources = append(l.Sources, path)
		}
	}
	if err := applyEnv(l.Config, env); err != nil {
		return nil, err
	}
	if err := validate(l.Config, "environment", nil); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Loaded) addWarnings(ws []Warning) {
	for _, w := range ws {
		if len(l.Warnings) >= MaxWarnings {
			return
		}
		l.Warnings = append(l.Warnings, w)
	}
}

// readBounded reads a regular file of at most MaxFileBytes.
func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("file is larger than %d bytes", MaxFileBytes)
	}
	return data, nil
}

// Parse decodes one shoal.toml document over the defaults and validates
// it, as Load does for the user file; file names it in errors.
func Parse(file string, data []byte) (*Config, []Warning, error) {
	if len(data) > MaxFileBytes {
		return nil, nil, &Error{File: file, Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileBytes)}
	}
	cfg := Default()
	ws, err := decodeInto(file, data, cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := validate(cfg, file, data); err != nil {
		return nil, nil, err
	}
	return cfg, ws, nil
}

// ParsePrompt decodes one prompt.toml document (its root is the prompt)
// over the default prompt and validates it.
func ParsePrompt(file string, data []byte) (*Prompt, []Warning, error) {
	if len(data) > MaxFileBytes {
		return nil, nil, &Error{File: file, Msg: fmt.Sprintf("file is larger than %d bytes", MaxFileBytes)}
	}
	cfg := Default()
	ws, err := decodeInto(file, data, &cfg.Prompt)
	if err != nil {
		return nil, nil, err
	}
	if err := validatePrompt(&cfg.Prompt, file, data, ""); err != nil {
		return nil, nil, err
	}
	return &cfg.Prompt, ws, nil
}

// decodeInto decodes data into dst (a pointer to a struct holding
// defaults), strictly: a syntax or type error is an *Error with position;
// unknown keys are returned as warnings.
func decodeInto(file string, data []byte, dst any) ([]Warning, error) {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(dst)
	if err == nil {
		return nil, nil
	}
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) {
		known := knownKeys(reflect.TypeOf(dst).Elem(), "")
		ws := make([]Warning, 0, min(len(sm.Errors), MaxWarnings))
		for i := range sm.Errors {
			if len(ws) >= MaxWarnings {
				break
			}
			de := &sm.Errors[i]
			line, col := de.Position()
			key := strings.Join(de.Key(), ".")
			ws = append(ws, Warning{File: file, Line: line, Col: col, Key: key, Suggest: suggestKey(key, known)})
		}
		return ws, nil
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return nil, &Error{File: file, Line: line, Col: col, Key: strings.Join(de.Key(), "."), Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return nil, &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

// knownKeys lists the dotted keys of a struct type's toml tags (maps are
// leaves: their keys are the user's).
func knownKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("toml")
		if tag == "" || tag == "-" {
			continue
		}
		k := prefix + tag
		out = append(out, k)
		if f.Type.Kind() == reflect.Struct {
			out = append(out, knownKeys(f.Type, k+".")...)
		}
	}
	return out
}

// suggestKey is the known key closest to key by edit distance among those
// with the same parent, or "".
func suggestKey(key string, known []string) string {
	parent := ""
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		parent = key[:i+1]
	}
	leaf := key[len(parent):]
	best, bestD := "", 0
	limit := max(1, min(3, len(leaf)/3))
	for _, k := range known {
		if !strings.HasPrefix(k, parent) || strings.Contains(k[len(parent):], ".") {
			continue
		}
		d := value.EditDistance(leaf, k[len(parent):])
		if d <= limit && (best == "" || d < bestD) {
			best, bestD = k, d
		}
	}
	return best
}

// keyPosition is the line and column of the dotted key's definition in
// data (table headers and dotted keys understood), or 0, 0.
func keyPosition(data []byte, key string) (int, int) {
	var p unstable.Parser
	p.Reset(data)
	table := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = joinKey(e.Key())
			if table == key {
				return position(&p, e.Key())
			}
		case unstable.KeyValue:
			k := joinKey(e.Key())
			if table != "" {
				k = table + "." + k
			}
			if k == key || strings.HasPrefix(key, k+".") {
				return position(&p, e.Key())
			}
		}
	}
	return 0, 0
}

func joinKey(it unstable.Iterator) string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return strings.Join(parts, ".")
}

func position(p *unstable.Parser, it unstable.Iterator) (int, int) {
	if !it.Next() {
		return 0, 0
	}
	n := it.Node()
	sh := p.Shape(n.Raw)
	return sh.Start.Line, sh.Start.Column
}
