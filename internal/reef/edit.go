package reef

import (
	"fmt"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// AddTool returns a native manifest's text with `[tools] name =
// "constraint"` inserted or updated, keeping the rest of the file (its
// comments and order) as written. Malformed TOML and a `tools` key that
// is not a table are refused with a ManifestError.
func AddTool(source string, data []byte, name, constraint string) ([]byte, error) {
	doc, err := decodeTOML(source, data)
	if err != nil {
		return nil, err
	}
	if raw, ok := doc["tools"]; ok {
		if _, ok := raw.(map[string]any); !ok {
			return nil, &ManifestError{Source: source, Msg: "`tools` is not a table"}
		}
	}
	out := editText(string(data), name, constraint)
	if check, err := ParseNative(source, []byte(out)); err == nil {
		if req, ok := check.Tool(name); ok && req.Constraint == constraintText(constraint) && req.Provider == "" {
			return []byte(out), nil
		}
	}
	// The text edit could not be placed (tools written inline, or as a
	// table with a provider): re-encode the document.
	if doc == nil {
		doc = map[string]any{}
	}
	tools, _ := doc["tools"].(map[string]any)
	if tools == nil {
		tools = map[string]any{}
	}
	tools[name] = constraint
	doc["tools"] = tools
	enc, err := toml.Marshal(doc)
	if err != nil {
		return nil, &ManifestError{Source: source, Msg: fmt.Sprintf("re-encoding: %v", err)}
	}
	return enc, nil
}

// editText places the entry under a `[tools]` header line.
func editText(text, name, constraint string) string {
	entry := tomlKey(name) + " = " + tomlString(constraint)
	lines := strings.Split(text, "\n")
	start := -1
	for i, l := range lines {
		if header(l) == "tools" {
			start = i
			break
		}
	}
	if start < 0 {
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		return text + "[tools]\n" + entry + "\n"
	}
	last := start
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "[") {
			break
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		last = i
		k, _, ok := strings.Cut(l, "=")
		if ok && unquoteKey(strings.TrimSpace(k)) == name {
			lines[i] = entry
			return strings.Join(lines, "\n")
		}
	}
	lines = append(lines[:last+1], append([]string{entry}, lines[last+1:]...)...)
	return strings.Join(lines, "\n")
}

// header is the table name of a `[name]` line, or "".
func header(line string) string {
	l := strings.TrimSpace(line)
	if i := strings.IndexByte(l, '#'); i >= 0 {
		l = strings.TrimSpace(l[:i])
	}
	if strings.HasPrefix(l, "[[") || !strings.HasPrefix(l, "[") || !strings.HasSuffix(l, "]") {
		return ""
	}
	return strings.TrimSpace(l[1 : len(l)-1])
}

func unquoteKey(k string) string {
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		return k[1 : len(k)-1]
	}
	return k
}
