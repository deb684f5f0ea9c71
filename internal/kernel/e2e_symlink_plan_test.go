package kernel

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/proto"
)

// TestLeashSymlinkTargetJudgedFromTheLink: a plan judges `ln -s`'s
// relative target where the kernel will resolve it, against the link's
// directory. From a working directory two levels inside the grant,
// `ln -s ../x W/t` names W/a/x relative to the working directory (inside)
// but the parent of W from the link (outside): explain shows the latter
// and exec refuses it before anything is made; the same link one level
// deeper stays inside and runs.
func TestLeashSymlinkTargetJudgedFromTheLink(t *testing.T) {
	k := startPolicyKernel(t, fsPolicy("agent:ln", ""))
	_, secret := k.token(t, "agent:ln", "worker")
	c := k.dial(t)
	c.attach("", secret)
	if err := os.MkdirAll(filepath.Join(k.dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.ok("exec", map[string]any{"src": "cd a/b"}, nil)

	link := filepath.Join(k.dir, "t")
	src := "ln -s ../x " + link
	var ex struct {
		Effects []struct {
			Kind string `json:"kind"`
			Path string `json:"path"`
		} `json:"effects"`
	}
	c.ok("explain", map[string]any{"src": src}, &ex)
	outside := filepath.Join(k.base(), "x")
	var got []leashEffectKey
	for _, e := range ex.Effects {
		got = append(got, leashEffect(e.Kind, e.Path))
	}
	if !slices.Contains(got, leashEffect("fs_read", outside)) || slices.Contains(got, leashEffect("fs_read", filepath.Join(k.dir, "a", "x"))) {
		t.Errorf("explain %s = %v; want fs_read of %s", src, got, outside)
	}
	r := c.fail("exec", map[string]any{"src": src}, proto.CodeLeashDenied)
	if v := verdictOf(t, r); v.Verdict != policy.Deny || !slices.Contains(v.Effects, leashEffect("fs_read", outside)) {
		t.Errorf("verdict = %+v", v)
	}
	if _, err := os.Lstat(link); err == nil {
		t.Fatal("the refused link was made")
	}

	// The same text one directory deeper reaches inside the grant.
	inner := filepath.Join(k.dir, "a", "t")
	c.ok("exec", map[string]any{"src": "ln -s ../x " + inner}, nil)
	if target, err := os.Readlink(inner); err != nil || target != "../x" {
		t.Errorf("link inside the grant: %q, %v", target, err)
	}
}
