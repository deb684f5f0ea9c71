package auth

import (
	"path/filepath"
	"testing"
)

func TestPaths(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name, xdg, store, stateDir string
		wantState, wantStore       string
	}{
		{name: "xdg", xdg: "/x/state", wantState: "/x/state/shoal", wantStore: "/x/state/shoal/tokens.json"},
		{name: "home", wantState: filepath.Join(home, ".local/state/shoal"), wantStore: filepath.Join(home, ".local/state/shoal/tokens.json")},
		{name: "relative xdg ignored", xdg: "rel", wantState: filepath.Join(home, ".local/state/shoal"), wantStore: filepath.Join(home, ".local/state/shoal/tokens.json")},
		{name: "state dir", xdg: "/x", stateDir: "/d", wantState: "/x/shoal", wantStore: "/d/tokens.json"},
		{name: "env wins", xdg: "/x", stateDir: "/d", store: "/e/t.json", wantState: "/x/shoal", wantStore: "/e/t.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HOME", home)
			t.Setenv("XDG_STATE_HOME", tc.xdg)
			t.Setenv(EnvStore, tc.store)
			got, err := DefaultStatePath()
			if err != nil || got != tc.wantState {
				t.Errorf("DefaultStatePath() = %q, %v; want %q", got, err, tc.wantState)
			}
			got, err = ResolveStorePath(tc.stateDir)
			if err != nil || got != tc.wantStore {
				t.Errorf("ResolveStorePath(%q) = %q, %v; want %q", tc.stateDir, got, err, tc.wantStore)
			}
		})
	}
	if got := StorePath("/s"); got != "/s/tokens.json" {
		t.Errorf("StorePath = %q", got)
	}
}
