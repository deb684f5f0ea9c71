package kernel

import (
	"testing"

	"github.com/shoalgo/shoal/internal/policy"
)

// TestEnvRestorable: a checkpointed variable comes back only while the
// grants in force still let the principal read or set it, so a policy
// narrowed across a restart withholds it as it would from a new session.
func TestEnvRestorable(t *testing.T) {
	narrow := &gateState{grants: &policy.Grants{Principal: "agent:a", Defined: true, EnvRead: []string{"HOME"}, EnvWrite: []string{"FOO"}}}
	free := &gateState{free: true}
	cases := []struct {
		st   *gateState
		kv   string
		name string
		want bool
	}{
		{narrow, "HOME=/home/a", "HOME", true},
		{narrow, "FOO=bar", "FOO", true},
		{narrow, "AWS_SECRET=x", "AWS_SECRET", false},
		{narrow, "=x", "", false},
		{free, "AWS_SECRET=x", "AWS_SECRET", true},
		{nil, "ANY=1", "ANY", true},
	}
	for _, c := range cases {
		name, ok := envRestorable(c.st, c.kv)
		if name != c.name || ok != c.want {
			t.Errorf("envRestorable(%q) = %q, %v; want %q, %v", c.kv, name, ok, c.name, c.want)
		}
	}
}
