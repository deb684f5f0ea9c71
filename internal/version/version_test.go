package version

import (
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	// A test binary records no VCS state and no module version.
	if got := String(); got != "dev" {
		t.Errorf("an unstamped test build is %q, want dev", got)
	}
	stamped = "v9.8.7"
	defer func() { stamped = "" }()
	if got := String(); got != "v9.8.7" {
		t.Errorf("stamped build is %q", got)
	}
	if got := Line("shoal-x"); !regexp.MustCompile(`^shoal-x v9\.8\.7 \(go[^ ]+ [a-z0-9]+/[a-z0-9]+\)$`).MatchString(got) {
		t.Errorf("Line = %q", got)
	}
}

func TestFromBuildInfo(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-buildmode", Value: "exe"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: "2026-12-05T13:15:40Z"},
			{Key: "vcs.modified", Value: modified},
		}
	}
	for _, tc := range []struct {
		name     string
		main     string
		settings []debug.BuildSetting
		want     string
	}{
		{"nothing recorded", "", nil, "dev"},
		{"devel without vcs (-buildvcs=false, go run)", "(devel)", nil, "dev"},
		{"go install @tag", "v0.2.0", nil, "v0.2.0"},
		{"go install @commit", "v0.0.0-20261205131540-0123456789ab", nil, "v0.0.0-20261205131540-0123456789ab"},
		{"checkout, older go", "(devel)", vcs("false"), "0123456789ab"},
		{"checkout, older go, modified", "(devel)", vcs("true"), "0123456789ab-dirty"},
		{"checkout, pseudo-version", "v0.0.0-20261205131540-0123456789ab", vcs("false"), "0123456789ab"},
		{"checkout, pseudo-version, modified", "v0.0.0-20261205131540-0123456789ab+dirty", vcs("true"), "0123456789ab-dirty"},
		{"checkout past a tag", "v0.2.1-0.20261205131540-0123456789ab", vcs("false"), "0123456789ab"},
		{"checkout past a pre-release", "v0.3.0-rc.1.0.20261205131540-0123456789ab", vcs("false"), "0123456789ab"},
		{"checkout on a tag", "v0.2.0", vcs("false"), "v0.2.0"},
		{"checkout on a tag, modified", "v0.2.0+dirty", vcs("true"), "v0.2.0-dirty"},
		{"checkout on a pre-release tag", "v0.3.0-rc.1", vcs("false"), "v0.3.0-rc.1"},
	} {
		got := fromBuildInfo(&debug.BuildInfo{Main: debug.Module{Path: "github.com/shoalgo/shoal", Version: tc.main}, Settings: tc.settings})
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if strings.ContainsAny(got, " \t\n") {
			t.Errorf("%s: %q has white space", tc.name, got)
		}
	}
}
