package leash

import "testing"

func TestResolve(t *testing.T) {
	tests := []struct {
		dir, home, in string
		want          string
		ok            bool
	}{
		{"/w", "/h", "a.txt", "/w/a.txt", true},
		{"/w", "/h", "./a/./b", "/w/a/b", true},
		{"/w/x", "/h", "../y/../z", "/w/z", true},
		{"/w", "/h", "../../..", "/", true},
		{"/w", "/h", "/etc//hosts/", "/etc/hosts", true},
		{"/w", "/h", "~", "/h", true},
		{"/w", "/h", "~/", "/h", true},
		{"/w", "/h", "~/a/../b", "/h/b", true},
		{"/w", "/h", "*.go", "/w/*.go", true},
		{"/w", "/h", "src/**/*.rs", "/w/src/**/*.rs", true},
		{"/w", "", "~/a", "~/a", false},
		{"/w", "/h", "~bob/a", "~bob/a", false},
		{"", "/h", "a/../b", "b", false},
		{"", "/h", "/abs", "/abs", true},
	}
	for _, tt := range tests {
		w := &walker{env: Env{Dir: tt.dir, Home: tt.home}, dir: tt.dir, dirOK: tt.dir != ""}
		got, ok := w.resolve(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("resolve(%q) in %q home %q = %q, %v; want %q, %v", tt.in, tt.dir, tt.home, got, ok, tt.want, tt.ok)
		}
	}
}
