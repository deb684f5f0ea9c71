package userconfig

import (
	"fmt"
	"strconv"
	"strings"
)

// Style is a parsed style string: ANSI select-graphic-rendition parameters.
type Style struct {
	params []string
}

// SGR is the escape sequence that turns the style on ("" for no style).
func (s Style) SGR() string {
	if len(s.params) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(s.params, ";") + "m"
}

// Reset is the escape that ends a style.
const Reset = "\x1b[0m"

// Paint wraps text in the style (text unchanged for no style).
func (s Style) Paint(text string) string {
	if len(s.params) == 0 || text == "" {
		return text
	}
	return s.SGR() + text + Reset
}

// IsZero reports whether the style does nothing.
func (s Style) IsZero() bool { return len(s.params) == 0 }

// colorCode and attrCode are the colour and attribute words (switches, not
// map literals, which a package initialiser would build at every start).
func colorCode(w string) (int, bool) {
	switch w {
	case "black":
		return 0, true
	case "red":
		return 1, true
	case "green":
		return 2, true
	case "yellow":
		return 3, true
	case "blue":
		return 4, true
	case "magenta", "purple":
		return 5, true
	case "cyan":
		return 6, true
	case "white":
		return 7, true
	}
	return 0, false
}

func attrCode(w string) (string, bool) {
	switch w {
	case "bold":
		return "1", true
	case "dim":
		return "2", true
	case "italic":
		return "3", true
	case "underline":
		return "4", true
	case "blink":
		return "5", true
	case "reverse":
		return "7", true
	case "strikethrough":
		return "9", true
	}
	return "", false
}

// maxStyleWords bounds the words of one style string.
const maxStyleWords = 16

// ParseStyle reads a style string: space-separated words, each an
// attribute (bold, dim, italic, underline, blink, reverse,
// strikethrough), a colour (a name, bright_NAME, 0-255 or #rrggbb), or
// "on" followed by a background colour. A single word that names a
// palette entry stands for that entry's style. "" and "none" are no style.
func ParseStyle(s string, palette map[string]string) (Style, error) {
	words := strings.Fields(s)
	if len(words) > maxStyleWords {
		return Style{}, fmt.Errorf("style %q has more than %d words", s, maxStyleWords)
	}
	if len(words) == 1 && palette != nil {
		if ref, ok := palette[words[0]]; ok {
			return ParseStyle(ref, nil)
		}
	}
	var st Style
	for i := 0; i < len(words); i++ {
		w := strings.ToLower(words[i])
		if w == "none" || w == "normal" {
			continue
		}
		if a, ok := attrCode(w); ok {
			st.params = append(st.params, a)
			continue
		}
		bg := false
		if w == "on" {
			if i+1 >= len(words) {
				return Style{}, fmt.Errorf("style %q: `on` needs a colour after it", s)
			}
			i++
			w, bg = strings.ToLower(words[i]), true
		}
		p, err := colorParam(w, bg)
		if err != nil {
			return Style{}, fmt.Errorf("style %q: %v", s, err)
		}
		st.params = append(st.params, p)
	}
	return st, nil
}

// colorParam is the SGR parameter for a colour word.
func colorParam(w string, bg bool) (string, error) {
	base, ext := 30, "38"
	if bg {
		base, ext = 40, "48"
	}
	if c, ok := colorCode(w); ok {
		return strconv.Itoa(base + c), nil
	}
	if name, ok := strings.CutPrefix(w, "bright_"); ok {
		if c, ok := colorCode(name); ok {
			return strconv.Itoa(base + 60 + c), nil
		}
	}
	if hex, ok := strings.CutPrefix(w, "#"); ok && len(hex) == 6 {
		v, err := strconv.ParseUint(hex, 16, 32)
		if err == nil {
			return fmt.Sprintf("%s;2;%d;%d;%d", ext, v>>16, (v>>8)&0xff, v&0xff), nil
		}
	}
	if n, err := strconv.Atoi(w); err == nil && n >= 0 && n <= 255 && len(w) <= 3 {
		return fmt.Sprintf("%s;5;%d", ext, n), nil
	}
	return "", fmt.Errorf("unknown colour or attribute %q", w)
}
