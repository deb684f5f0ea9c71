package highlight

import "testing"

func TestParseColor(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"red", "31"},
		{"bold blue", "1;34"},
		{"Bright-Magenta", "95"},
		{"208", "38;5;208"},
		{"#ff8000", "38;2;255;128;0"},
		{"dim italic", "2;3"},
		{"none", ""},
	} {
		got, err := ParseColor(tc.spec)
		if err != nil || got != tc.want {
			t.Errorf("ParseColor(%q) = %q, %v; want %q", tc.spec, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "red blue", "256", "-1", "#ff80", "#gg0000", "chartreuse", "bright-", "31m\x1b[2J"} {
		if got, err := ParseColor(bad); err == nil {
			t.Errorf("ParseColor(%q) = %q, want an error", bad, got)
		}
	}
}

func FuzzParseColor(f *testing.F) {
	for _, s := range []string{"red", "bold #00ff00", "12", "none", "bright-cyan underline"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		sgr, err := ParseColor(spec)
		if err == nil && !validSGR(sgr) {
			t.Fatalf("ParseColor(%q) = %q, not SGR parameters", spec, sgr)
		}
		if err == nil {
			var th Theme
			if !th.Set("keyword", sgr) {
				t.Fatalf("a parsed colour %q is refused by Theme.Set", sgr)
			}
		}
	})
}
