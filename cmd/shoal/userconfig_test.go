package main

import (
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/repl"
	"github.com/shoalgo/shoal/internal/userconfig"
)

// TestDisplayOptionsFromConfig: render.* reaches the REPL's display.
func TestDisplayOptionsFromConfig(t *testing.T) {
	d := displayOptions(userconfig.Default())
	if d.Tall != repl.TallHead || d.TimePrecision != time.Second || d.Pager != "" || d.PromptLines != 1 {
		t.Errorf("defaults: %+v", d)
	}
	c, _, err := userconfig.Parse("t.toml", []byte("[render]\npaging = \"auto\"\npager = \"most\"\nhead_rows = 7\ntime_precision = \"millisecond\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	d = displayOptions(c)
	if d.Tall != repl.TallPager || d.Pager != "most" || d.HeadRows != 7 || d.TimePrecision != time.Millisecond {
		t.Errorf("configured: %+v", d)
	}
	c.Render.Paging = userconfig.PagingNever
	if displayOptions(c).Tall != repl.TallAll {
		t.Errorf("never does not print everything")
	}
}

// TestSessionEnv: [env] entries replace the process's values.
func TestSessionEnv(t *testing.T) {
	t.Setenv("SHOAL_CFG_T", "old")
	c := userconfig.Default()
	if sessionEnv(c) != nil {
		t.Errorf("no [env] should mean the host's environment (nil)")
	}
	c.Env = map[string]string{"SHOAL_CFG_T": "new", "SHOAL_CFG_U": "u"}
	env := sessionEnv(c)
	n := 0
	for _, kv := range env {
		switch kv {
		case "SHOAL_CFG_T=new", "SHOAL_CFG_U=u":
			n++
		case "SHOAL_CFG_T=old":
			t.Errorf("the old value was kept")
		}
	}
	if n != 2 {
		t.Errorf("env %v", env)
	}
}
