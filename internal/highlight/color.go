package highlight

import (
	"fmt"
	"strconv"
	"strings"
)

// maxColorSpec bounds a colour specification's length.
const maxColorSpec = 64

// colourNames are the eight ANSI colours; "bright-" names add 60.
var colourNames = map[string]int{
	"black": 30, "red": 31, "green": 32, "yellow": 33, "blue": 34, "magenta": 35, "cyan": 36, "white": 37,
}

// attrNames are the text attributes a specification may add.
var attrNames = map[string]string{
	"bold": "1", "dim": "2", "italic": "3", "underline": "4", "reverse": "7",
}

// ParseColor reads a colour as a person writes it in a config file:
// space-separated words, each an attribute (bold, dim, italic, underline,
// reverse), a colour name (red, bright-blue, ...), a 256-colour index
// (0-255) or a #rrggbb hex colour, or "none" alone for no colour. It
// returns the SGR parameters Theme holds ("1;34", "38;5;208", "").
func ParseColor(spec string) (string, error) {
	if len(spec) > maxColorSpec {
		return "", fmt.Errorf("colour %.20q…: longer than %d bytes", spec, maxColorSpec)
	}
	words := strings.Fields(strings.ToLower(spec))
	if len(words) == 0 {
		return "", fmt.Errorf("empty colour (use \"none\" for no colour)")
	}
	if len(words) == 1 && words[0] == "none" {
		return "", nil
	}
	var parts []string
	colour := false
	for _, w := range words {
		if a, ok := attrNames[w]; ok {
			parts = append(parts, a)
			continue
		}
		if colour {
			return "", fmt.Errorf("colour %q names two colours", spec)
		}
		colour = true
		switch {
		case colourNames[w] != 0:
			parts = append(parts, strconv.Itoa(colourNames[w]))
		case strings.HasPrefix(w, "bright-") && colourNames[w[len("bright-"):]] != 0:
			parts = append(parts, strconv.Itoa(colourNames[w[len("bright-"):]]+60))
		case strings.HasPrefix(w, "#") && len(w) == 7:
			n, err := strconv.ParseUint(w[1:], 16, 32)
			if err != nil {
				return "", fmt.Errorf("colour %q: %q is not #rrggbb", spec, w)
			}
			parts = append(parts, fmt.Sprintf("38;2;%d;%d;%d", n>>16, n>>8&0xff, n&0xff))
		default:
			n, err := strconv.Atoi(w)
			if err != nil || n < 0 || n > 255 {
				return "", fmt.Errorf("colour %q: %q is not a colour name, an index 0-255 or #rrggbb", spec, w)
			}
			parts = append(parts, "38;5;"+strconv.Itoa(n))
		}
	}
	return strings.Join(parts, ";"), nil
}
