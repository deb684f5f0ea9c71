package complete

import (
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
)

// paths offers directory entries for a path-shaped or argument word:
// directories get a trailing `/`, hidden entries appear only when the typed
// name starts with `.`.
func (c *completer) paths(start int, word string) []Candidate {
	if c.ctx.ReadDir == nil {
		return nil
	}
	span := syntax.Span{Start: int32(start), End: int32(c.wordEnd(isWordByte))}
	if word == "~" {
		c.add("~/", KindPath, "dir", span, word)
		return c.result()
	}
	cut := strings.LastIndexByte(word, '/') + 1
	dirPart, base := word[:cut], word[cut:]
	dir, ok := c.resolveDir(dirPart)
	if !ok {
		return nil
	}
	ents, err := c.ctx.ReadDir(dir)
	if err != nil {
		return nil
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		label, detail := dirPart+name, "file"
		if e.IsDir() {
			label, detail = label+"/", "dir"
		} else if e.Type()&fs.ModeSymlink != 0 {
			detail = "symlink"
		}
		c.addKeyed(quoteWord(label), label, KindPath, detail, span, word)
	}
	return c.result()
}

// resolveDir turns the directory part of a word into an absolute path.
func (c *completer) resolveDir(dirPart string) (string, bool) {
	switch {
	case dirPart == "":
		return c.ctx.Dir, c.ctx.Dir != ""
	case strings.HasPrefix(dirPart, "~/"):
		return path.Join(c.ctx.Home, dirPart[1:]), c.ctx.Home != ""
	case strings.HasPrefix(dirPart, "~"):
		return "", false
	case path.IsAbs(dirPart):
		return path.Clean(dirPart), true
	}
	return path.Join(c.ctx.Dir, dirPart), c.ctx.Dir != ""
}

// quoteWord single-quotes a path that would not survive as a bare word.
func quoteWord(s string) string {
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) || s[i] == '#' || s[i] == '$' || s[i] == '*' || s[i] == '?' {
			return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
		}
	}
	return s
}
