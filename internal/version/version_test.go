package version

import "testing"

func TestString(t *testing.T) {
	if got := String(); got != "dev" {
		t.Errorf("an unstamped test build is %q, want dev", got)
	}
	stamped = "v9.8.7"
	defer func() { stamped = "" }()
	if got := String(); got != "v9.8.7" {
		t.Errorf("stamped build is %q", got)
	}
}
