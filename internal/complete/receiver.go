package complete

import (
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// recv is what is known about the receiver before a `.`.
type recv struct {
	known bool
	kind  value.Kind
	name  string // a bound name, for record fields
	ns    string // a namespace receiver
	env   bool   // the `env` pseudo-namespace
}

// sizeUnit and durationUnit report the number-literal suffixes (switches,
// not map literals, which a package initialiser would build at every start).
func sizeUnit(u string) bool {
	switch u {
	case "b", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib":
		return true
	}
	return false
}

func durationUnit(u string) bool {
	switch u {
	case "ns", "us", "ms", "s", "m", "h", "d", "w":
		return true
	}
	return false
}

// receiver infers the receiver that ends at end (exclusive).
func (c *completer) receiver(end int) recv {
	if end <= 0 {
		return recv{}
	}
	src := c.src
	switch last := src[end-1]; {
	case last == '"' || last == '\'':
		return recv{known: true, kind: value.KStr}
	case last == ']':
		open := matchOpen(src, end-1)
		if open < 0 || open > 0 && (isIdentByte(src[open-1]) || src[open-1] == ')' || src[open-1] == ']') {
			return recv{} // indexing
		}
		return recv{known: true, kind: value.KList}
	case last == ')':
		open := matchOpen(src, end-1)
		if open < 0 {
			return recv{}
		}
		switch identBefore(src, open) {
		case "path":
			return recv{known: true, kind: value.KPath}
		case "glob":
			return recv{known: true, kind: value.KGlob}
		case "regex":
			return recv{known: true, kind: value.KRegex}
		}
		return recv{}
	case last == '}':
		open := matchOpen(src, end-1)
		if open < 0 {
			return recv{}
		}
		if b := strings.TrimRight(src[:open], " \t"); b != "" && isIdentByte(b[len(b)-1]) {
			return recv{known: true, kind: value.KOutcome} // an interpreter block
		}
		return recv{known: true, kind: value.KRecord}
	case isIdentByte(last):
		start := end
		for start > 0 && (isIdentByte(src[start-1])) {
			start--
		}
		tok := src[start:end]
		if tok[0] >= '0' && tok[0] <= '9' {
			return numberKind(src, start, end)
		}
		if start > 0 && (src[start-1] == '.' || src[start-1] == '$') {
			return recv{} // a chain: unknown
		}
		return c.named(tok)
	}
	return recv{}
}

// named is the receiver for a bare name.
func (c *completer) named(name string) recv {
	switch name {
	case "true", "false":
		return recv{known: true, kind: value.KBool}
	case "null":
		return recv{known: true, kind: value.KNull}
	}
	if c.ctx.isBound(name) {
		if c.ctx.KindOf != nil {
			if k, ok := c.ctx.KindOf(name); ok {
				return recv{known: true, kind: k, name: name}
			}
		}
		return recv{}
	}
	if name == "env" {
		return recv{env: true}
	}
	if c.ctx.isNamespace(name) {
		return recv{ns: name}
	}
	return recv{}
}

// numberKind classifies the number literal src[start:end] (which may be
// the tail of a float such as 1.5).
func numberKind(src string, start, end int) recv {
	tok := src[start:end]
	i := 0
	for i < len(tok) && (tok[i] >= '0' && tok[i] <= '9' || tok[i] == '_') {
		i++
	}
	unit := strings.ToLower(tok[i:])
	switch {
	case unit == "":
		if start > 1 && src[start-1] == '.' && src[start-2] >= '0' && src[start-2] <= '9' {
			return recv{known: true, kind: value.KFloat}
		}
		return recv{known: true, kind: value.KInt}
	case sizeUnit(unit):
		return recv{known: true, kind: value.KSize}
	case durationUnit(unit):
		return recv{known: true, kind: value.KDuration}
	}
	return recv{}
}

// identBefore is the identifier ending just before pos, or "".
func identBefore(src string, pos int) string {
	start := pos
	for start > 0 && isIdentByte(src[start-1]) {
		start--
	}
	return src[start:pos]
}

// matchOpen finds the bracket opening the one that closes at close, or -1.
// Quotes are not tracked; a mismatch answers -1.
func matchOpen(src string, close int) int {
	var stack []byte
	for i := close; i >= 0; i-- {
		switch b := src[i]; b {
		case ')', ']', '}':
			stack = append(stack, b)
		case '(', '[', '{':
			if len(stack) == 0 || pair(b) != stack[len(stack)-1] {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i
			}
		}
	}
	return -1
}

func pair(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}
