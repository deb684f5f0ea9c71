package userconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"

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

// Loaded is the result of Load: the configuration, warnings, the files
// that were read, and the problems that made a file (or the environment's
// overrides) be skipped.
type Loaded struct {
	Config   *Config
	Warnings []Warning
	Sources  []string
	// Problems are what could not be used, in the order met: each names
	// its file (or $VARIABLE), line and column, and what is wrong. The
	// layer it belongs to was left out whole, so Config is what the other
	// layers and the defaults make.
	Problems []*Error
}

// Load reads shoal.toml and prompt.toml from Dir(env) over the defaults,
// then the environment overrides (NO_COLOR, SHOAL_* as documented). A
// missing file is no layer. It is strict: an unreadable or bad file, or a
// bad override, is an *Error (the first problem LoadSkipping meets).
func Load(env Env) (*Loaded, error) {
	l := LoadSkipping(env)
	if len(l.Problems) > 0 {
		return nil, l.Problems[0]
	}
	return l, nil
}

// LoadSkipping is Load for a person at a prompt: it never fails. A file
// that cannot be used (unreadable, malformed TOML, a wrong type, a value
// outside its allowed set) is left out whole and reported in Problems;
// so are the environment's overrides when one of them is bad (NO_COLOR
// still applies). Config is then what the other layers and the defaults
// make.
func LoadSkipping(env Env) *Loaded {
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
				l.Problems = append(l.Problems, &Error{File: path, Msg: err.Error()})
				continue
			}
			var ws []Warning
			if name == MainFile {
				cfg := Default()
				ws, err = decodeInto(path, data, cfg)
				if err == nil {
					err = validate(cfg, path, data)
				}
				if err == nil {
					l.Config = cfg
				}
			} else {
				p := l.Config.Prompt // a copy: a bad file leaves the layers below as they were
				ws, err = decodeInto(path, data, &p)
				if err == nil {
					err = validatePrompt(&p, path, data, "")
				}
				if err == nil {
					l.Config.Prompt = p
				}
			}
			if err != nil {
				l.Problems = append(l.Problems, asError(path, err))
				continue
			}
			l.addWarnings(ws)
			l.Sources = append(l.Sources, path)
		}
	}
	withEnv := *l.Config
	err := applyEnv(&withEnv, env)
	if err == nil {
		err = validate(&withEnv, "environment", nil)
	}
	if err != nil {
		l.Problems = append(l.Problems, asError("environment", err))
		if env.Getenv != nil && env.Getenv("NO_COLOR") != "" {
			l.Config.Render.Color = false
		}
		return l
	}
	l.Config = &withEnv
	return l
}

// asError is err as an *Error naming file.
func asError(file string, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{File: file, Msg: err.Error()}
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
		return nil, &Error{File: file, Line: line, Col: col, Key: strings.Join(de.Key(), "."), Msg: plainDecodeMsg(de.Error())}
	}
	return nil, &Error{File: file, Msg: plainDecodeMsg(err.Error())}
}

// typeMismatch is go-toml's wording for a value of the wrong type.
// It is compiled when a decode error is first explained (by a sync.Once, not
// sync.OnceValue, whose closure a package initialiser would make).
func typeMismatch() *regexp.Regexp {
	typeMismatchRE.Do(func() { typeMismatchRE.re = regexp.MustCompile(`cannot decode TOML (\w+) into .* of type (\S+)`) })
	return typeMismatchRE.re
}

var typeMismatchRE struct {
	sync.Once
	re *regexp.Regexp
}

// plainDecodeMsg is a decoder's message in the words of the file, not of
// the Go types it decodes into.
func plainDecodeMsg(msg string) string {
	msg = strings.TrimPrefix(msg, "toml: ")
	if m := typeMismatch().FindStringSubmatch(msg); m != nil {
		want := m[2]
		switch {
		case strings.HasPrefix(want, "int"):
			want = "an integer"
		case want == "bool":
			want = "a boolean"
		case want == "string":
			want = "a string"
		case strings.HasPrefix(want, "[]"):
			want = "an array"
		case strings.HasPrefix(want, "map["), strings.Contains(want, "."):
			want = "a table"
		}
		return "expected " + want + ", found " + m[1]
	}
	return msg
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
