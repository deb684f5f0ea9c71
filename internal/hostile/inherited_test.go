//go:build linux

package hostile

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
)

// TestHostileInheritedDescriptorsStayKernels: a kernel started with a
// descriptor its starter left open without close-on-exec (a shell's or
// service manager's pipe) passes it to none of the commands its sessions
// run. Before, every command held the kernel's fd 3.
func TestHostileInheritedDescriptorsStayKernels(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	k := Start(t, Options{Inherit: []*os.File{w}})
	c := k.Owner(t)
	res, err := c.Exec(Ctx(t), client.ExecParams{Src: `(sh -c 'ls /proc/self/fd').out`, Position: client.PositionVal})
	if err != nil {
		t.Fatal(err)
	}
	var str struct {
		V string `json:"v"`
	}
	if err := json.Unmarshal(res.Value, &str); err != nil {
		t.Fatalf("decoding %s: %v", res.Value, err)
	}
	out := str.V
	// ls's own directory is the lowest free descriptor: 3 when nothing
	// else is open, 4 when the inherited pipe is.
	fds := strings.Fields(out)
	if len(fds) == 0 {
		t.Fatalf("the command listed no descriptors: %q", out)
	}
	for _, fd := range fds {
		if fd != "0" && fd != "1" && fd != "2" && fd != "3" {
			t.Errorf("a command holds descriptor %s besides its stdio (listed: %v)", fd, fds)
		}
	}
	k.Alive(t)
}
