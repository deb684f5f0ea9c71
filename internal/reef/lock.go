package reef

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// LockEntry is one tool's recorded binding in reef.lock.
type LockEntry struct {
	Name       string
	Version    string
	Provider   string
	Path       string
	Blake3     string
	ResolvedAt string
}

// Lock is a reef.lock: tool name → entry.
type Lock struct {
	Entries map[string]LockEntry
	// Dir is the directory the lock sits in (and locks); "" when unknown,
	// and then no project-local entry is accepted.
	Dir string
}

// NewLock is an empty lock.
func NewLock() *Lock { return &Lock{Entries: map[string]LockEntry{}} }

// ParseLock reads a reef.lock: one `[tool.NAME]` table per entry.
func ParseLock(source string, data []byte) (*Lock, error) {
	doc, err := decodeTOML(source, data)
	if err != nil {
		return nil, err
	}
	l := NewLock()
	if filepath.IsAbs(source) {
		l.Dir = filepath.Dir(source)
	}
	raw, ok := doc["tool"]
	if !ok {
		return l, nil
	}
	tools, ok := raw.(map[string]any)
	if !ok {
		return nil, &ManifestError{Source: source, Msg: "`tool` is not a table"}
	}
	if len(tools) > MaxTools {
		return nil, &ManifestError{Source: source, Msg: fmt.Sprintf("more than %d entries", MaxTools)}
	}
	for key, v := range tools {
		t, ok := v.(map[string]any)
		if !ok {
			return nil, &ManifestError{Source: source, Msg: fmt.Sprintf("entry `%s` is not a table", key)}
		}
		e := LockEntry{Name: key}
		str := func(k string) string { s, _ := t[k].(string); return s }
		if s := str("name"); s != "" {
			e.Name = s
		}
		e.Version, e.Provider, e.Path, e.Blake3 = str("version"), str("provider"), str("path"), str("blake3")
		switch r := t["resolved_at"].(type) {
		case string:
			e.ResolvedAt = r
		case time.Time:
			e.ResolvedAt = r.UTC().Format(time.RFC3339)
		}
		l.Entries[key] = e
	}
	return l, nil
}

// Names are the locked tool names, sorted.
func (l *Lock) Names() []string {
	out := make([]string, 0, len(l.Entries))
	for n := range l.Entries {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Encode writes the lock as TOML, entries sorted by name.
func (l *Lock) Encode() []byte {
	var b strings.Builder
	b.WriteString("# reef.lock: written by `reef lock`; commit it with .reef.toml\n")
	for _, n := range l.Names() {
		e := l.Entries[n]
		fmt.Fprintf(&b, "\n[tool.%s]\n", tomlKey(n))
		for _, kv := range [][2]string{{"name", e.Name}, {"version", e.Version}, {"provider", e.Provider},
			{"path", e.Path}, {"blake3", e.Blake3}, {"resolved_at", e.ResolvedAt}} {
			fmt.Fprintf(&b, "%s = %s\n", kv[0], tomlString(kv[1]))
		}
	}
	return []byte(b.String())
}

// tomlKey writes a key bare when TOML allows it, else quoted.
func tomlKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return tomlString(k)
		}
	}
	return k
}

// tomlString writes a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
