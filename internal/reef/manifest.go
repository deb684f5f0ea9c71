package reef

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// ToolReq is one tool a manifest constrains.
type ToolReq struct {
	Name       string
	Constraint string // as written; "*" when a table omits version
	Provider   string // pinned provider, "" for any
}

// Runner is how a script extension runs: a tool and argv before the path.
type Runner struct {
	Tool string
	Args []string
}

// Manifest is a normalized manifest of any format.
type Manifest struct {
	Tools    []ToolReq // sorted by name
	Runners  map[string]Runner
	Hermetic bool
}

// Tool returns the manifest's requirement for name.
func (m *Manifest) Tool(name string) (ToolReq, bool) {
	i := sort.Search(len(m.Tools), func(i int) bool { return m.Tools[i].Name >= name })
	if i < len(m.Tools) && m.Tools[i].Name == name {
		return m.Tools[i], true
	}
	return ToolReq{}, false
}

// ManifestError is a manifest that could not be read as its format.
type ManifestError struct {
	Source string
	Msg    string
}

func (e *ManifestError) Error() string { return "parsing manifest " + e.Source + ": " + e.Msg }

// decodeTOML reads a TOML document into a generic map.
func decodeTOML(source string, data []byte) (map[string]any, error) {
	if len(data) > MaxManifestBytes {
		return nil, &ManifestError{Source: source, Msg: fmt.Sprintf("larger than %d bytes", MaxManifestBytes)}
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		msg := err.Error()
		var de *toml.DecodeError
		if asDecodeError(err, &de) {
			row, col := de.Position()
			msg = fmt.Sprintf("%d:%d: %s", row, col, de.Error())
		}
		return nil, &ManifestError{Source: source, Msg: msg}
	}
	return doc, nil
}

func asDecodeError(err error, out **toml.DecodeError) bool {
	de, ok := err.(*toml.DecodeError)
	if ok {
		*out = de
	}
	return ok
}

// ParseNative reads a `.reef.toml` (or a user `[reef]` table's text).
func ParseNative(source string, data []byte) (*Manifest, error) {
	doc, err := decodeTOML(source, data)
	if err != nil {
		return nil, err
	}
	return nativeFrom(source, doc)
}

// nativeFrom normalizes a decoded native manifest document.
func nativeFrom(source string, doc map[string]any) (*Manifest, error) {
	m := &Manifest{Runners: map[string]Runner{}}
	if raw, ok := doc["tools"]; ok {
		tools, ok := raw.(map[string]any)
		if !ok {
			return nil, &ManifestError{Source: source, Msg: "`tools` is not a table"}
		}
		if len(tools) > MaxTools {
			return nil, &ManifestError{Source: source, Msg: fmt.Sprintf("more than %d tools", MaxTools)}
		}
		for name, v := range tools {
			switch x := v.(type) {
			case string:
				m.Tools = append(m.Tools, ToolReq{Name: name, Constraint: constraintText(x)})
			case map[string]any:
				req := ToolReq{Name: name, Constraint: "*"}
				if s, ok := x["version"].(string); ok {
					req.Constraint = constraintText(s)
				}
				if s, ok := x["provider"].(string); ok {
					req.Provider = s
				}
				m.Tools = append(m.Tools, req)
			default:
				return nil, &ManifestError{Source: source, Msg: fmt.Sprintf("tool `%s`: expected a version string or a table", name)}
			}
		}
	}
	if raw, ok := doc["runners"].(map[string]any); ok {
		for ext, v := range raw {
			switch x := v.(type) {
			case string:
				m.Runners[ext] = Runner{Tool: x}
			case map[string]any:
				r := Runner{}
				r.Tool, _ = x["tool"].(string)
				if args, ok := x["args"].([]any); ok {
					for _, a := range args {
						if s, ok := a.(string); ok {
							r.Args = append(r.Args, s)
						}
					}
				}
				if r.Tool != "" {
					m.Runners[ext] = r
				}
			}
		}
	}
	if opts, ok := doc["options"].(map[string]any); ok {
		m.Hermetic, _ = opts["hermetic"].(bool)
	}
	sortTools(m.Tools)
	return m, nil
}

func constraintText(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "*"
	}
	return s
}

func sortTools(ts []ToolReq) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
}

// ParseUser reads the `[reef]` table of the user's shoal.toml; a file
// without one is an empty manifest.
func ParseUser(source string, data []byte) (*Manifest, error) {
	doc, err := decodeTOML(source, data)
	if err != nil {
		return nil, err
	}
	sub, ok := doc["reef"].(map[string]any)
	if !ok {
		return &Manifest{Runners: map[string]Runner{}}, nil
	}
	return nativeFrom(source, sub)
}

// ParseMise reads the `[tools]` of a mise.toml: a string, the first item
// of an array, or a table's `version`. Other shapes and sections are
// ignored; mise files carry no runners, pins or options for Reef.
func ParseMise(source string, data []byte) (*Manifest, error) {
	doc, err := decodeTOML(source, data)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Runners: map[string]Runner{}}
	tools, _ := doc["tools"].(map[string]any)
	for name, v := range tools {
		if len(m.Tools) >= MaxTools {
			break
		}
		var c string
		switch x := v.(type) {
		case string:
			c = x
		case []any:
			if len(x) == 0 {
				continue
			}
			s, ok := x[0].(string)
			if !ok {
				continue
			}
			c = s
		case map[string]any:
			s, ok := x["version"].(string)
			if !ok {
				continue
			}
			c = s
		default:
			continue
		}
		m.Tools = append(m.Tools, ToolReq{Name: name, Constraint: constraintText(c)})
	}
	sortTools(m.Tools)
	return m, nil
}

// ParseToolVersions reads an asdf `.tool-versions`: `tool version
// [fallbacks…]` per line, `#` comments removed; the first version counts.
func ParseToolVersions(source string, data []byte) (*Manifest, error) {
	if len(data) > MaxManifestBytes {
		return nil, &ManifestError{Source: source, Msg: fmt.Sprintf("larger than %d bytes", MaxManifestBytes)}
	}
	m := &Manifest{Runners: map[string]Runner{}}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxManifestBytes)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 2 || seen[f[0]] || len(m.Tools) >= MaxTools {
			continue
		}
		seen[f[0]] = true
		m.Tools = append(m.Tools, ToolReq{Name: f[0], Constraint: constraintText(f[1])})
	}
	sortTools(m.Tools)
	return m, nil
}
