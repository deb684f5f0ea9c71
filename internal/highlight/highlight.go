// Package highlight colours Shoal source for a terminal: the lexer's
// token classes (syntax.Tokens) mapped to SGR escape sequences by a
// Theme. It is pure: text in, text out, no terminal access. Stripping the
// escapes from what Render returns gives back the source exactly, so a
// line editor can show it in place of what was typed.
package highlight

import (
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// Theme holds the SGR parameters (the part between `ESC [` and `m`, such
// as "1;35" or "38;5;208") for each token class; "" leaves a class
// uncoloured. A parameter that is not made of digits and semicolons is
// ignored, so a theme from a config file cannot inject other escapes.
type Theme [syntax.NumClasses]string

// Default is the theme used unless a config says otherwise: keywords
// magenta, commands bold blue, strings green, numbers and literals
// yellow, flags cyan, methods blue, comments dim, errors red, paths
// underlined; variables and operators plain.
var Default = Theme{
	syntax.ClassKeyword: "35",
	syntax.ClassLiteral: "33",
	syntax.ClassCommand: "1;34",
	syntax.ClassString:  "32",
	syntax.ClassNumber:  "33",
	syntax.ClassFlag:    "36",
	syntax.ClassMethod:  "34",
	syntax.ClassComment: "2",
	syntax.ClassError:   "31",
	syntax.ClassPath:    "4",
}

// ClassNames names the token classes as a config file spells them.
var ClassNames = [syntax.NumClasses]string{
	syntax.ClassPlain:    "plain",
	syntax.ClassKeyword:  "keyword",
	syntax.ClassLiteral:  "literal",
	syntax.ClassCommand:  "command",
	syntax.ClassString:   "string",
	syntax.ClassNumber:   "number",
	syntax.ClassFlag:     "flag",
	syntax.ClassOperator: "operator",
	syntax.ClassMethod:   "method",
	syntax.ClassComment:  "comment",
	syntax.ClassError:    "error",
	syntax.ClassVariable: "variable",
	syntax.ClassPath:     "path",
}

// Set sets the colour of the class named name (see ClassNames) to sgr:
// SGR parameters ("1;34") or a whole SGR sequence ("\x1b[1;34m", as a
// config's style renders), "" for none. It reports false for an unknown
// name or anything that is not SGR.
func (th *Theme) Set(name, sgr string) bool {
	if p, ok := strings.CutPrefix(sgr, "\x1b["); ok {
		if sgr, ok = strings.CutSuffix(p, "m"); !ok {
			return false
		}
	}
	if !validSGR(sgr) {
		return false
	}
	for c, n := range ClassNames {
		if n == name {
			th[c] = sgr
			return true
		}
	}
	return false
}

// validSGR reports whether p is digits separated by semicolons (or "").
func validSGR(p string) bool {
	if len(p) > 32 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if (p[i] < '0' || p[i] > '9') && p[i] != ';' {
			return false
		}
	}
	return true
}

// reset ends a coloured token.
const reset = "\x1b[0m"

// Render returns src with each token of a coloured class wrapped in its
// SGR sequence and a reset. isBound tells value-bound session names (nil:
// none), as the parser would be told.
func Render(src string, isBound func(string) bool, th *Theme) string {
	return RenderKnown(src, isBound, th, nil)
}

// RenderKnown is Render that colours a command head known does not know
// (not a builtin, function, alias or program on PATH) as an error, as a
// person types it; a head spelled as a path (with a `/`) is left alone.
// known nil knows every command.
func RenderKnown(src string, isBound func(string) bool, th *Theme, known func(name string) bool) string {
	toks := syntax.Tokens(src, isBound)
	var b strings.Builder
	b.Grow(len(src) + 8*len(toks))
	at := 0
	for _, tk := range toks {
		class := tk.Class
		if class == syntax.ClassCommand && known != nil {
			if w := src[tk.Start:tk.End]; w != "^" && !strings.Contains(w, "/") && !known(w) {
				class = syntax.ClassError
			}
		}
		sgr := th[class]
		if sgr == "" || !validSGR(sgr) {
			continue
		}
		b.WriteString(src[at:tk.Start])
		b.WriteString("\x1b[")
		b.WriteString(sgr)
		b.WriteByte('m')
		b.WriteString(src[tk.Start:tk.End])
		b.WriteString(reset)
		at = tk.End
	}
	b.WriteString(src[at:])
	return b.String()
}

// Strip removes the SGR sequences Render writes, giving back the source.
func Strip(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\x1b' && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';') {
				j++
			}
			if j < len(s) && s[j] == 'm' {
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
