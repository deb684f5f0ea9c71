package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// TestEmitDisplayStyle: a statement-position builtin result prints in the
// session's display style: value.Human leaves out the repeated name column
// and the fraction of a second, the zero style keeps both; the rows keep
// them either way.
func TestEmitDisplayStyle(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"file_10", "file_9"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	frac := regexp.MustCompile(`:\d\d\.\d+Z`)
	for _, c := range []struct {
		name  string
		style value.Style
		human bool
	}{{"human", value.Human, true}, {"plain", value.Style{}, false}} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.AllowAll), Dir: dir, Env: []string{"HOME=" + dir}, Stdout: &out, Display: c.style})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			v, err := in.Eval(context.Background(), "for x in [1] { ls }\n(ls).out.map(r => r.name)")
			if err != nil {
				t.Fatal(err)
			}
			if got := value.Inline(v); got != `["file_9", "file_10"]` {
				t.Errorf("names %s, want natural order", got)
			}
			header := strings.Fields(strings.SplitN(out.String(), "\n", 2)[0])
			if hasName := strings.Contains(strings.Join(header, " "), "name"); hasName == c.human {
				t.Errorf("header %q (human %v)", header, c.human)
			}
			// (The plain display's fraction is not asserted: a file's time
			// may fall on a whole second.)
			if c.human && frac.MatchString(out.String()) {
				t.Errorf("human display shows a fraction of a second:\n%s", out.String())
			}
		})
	}
}
