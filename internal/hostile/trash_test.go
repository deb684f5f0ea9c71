//go:build linux

package hostile

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shoalgo/shoal/client"
)

// trashUsage is the disk blocks and entries under the kernel's trash.
func trashUsage(t *testing.T, stateDir string) (bytes int64, entries int) {
	t.Helper()
	root := filepath.Join(stateDir, "trash")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && !d.IsDir() {
				bytes += st.Blocks * 512
			}
		}
		entries++
		return nil
	})
	return bytes, entries
}

// The trash's retention through the real kernel binary: an agent with
// fs_delete removes ten times --trash-max-bytes of files and a tree of ten
// times --trash-max-entries entries; soon after, the kernel's trash is
// back within both bounds (the oldest items gone, the newest kept), the
// kernel stays up and the owner is served all along.
func TestHostileTrashRetention(t *testing.T) {
	const (
		maxBytes   = 1 << 20
		maxEntries = 200
	)
	base, err := os.MkdirTemp("", "htrash")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	pol := filepath.Join(base, "policy.toml")
	w := fmt.Sprintf("%s/hk*/work/**", os.TempDir())
	text := fmt.Sprintf("[principal.\"agent:trasher\"]\nopaque = \"allow\"\n[principal.\"agent:trasher\".fs]\nread = [%q]\nwrite = [%q]\ndelete = [%q]\n", w, w, w)
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	k := Start(t, Options{Flags: []string{"--policy", pol,
		"--trash-max-bytes", fmt.Sprint(maxBytes), "--trash-max-entries", fmt.Sprint(maxEntries)}})
	hb := k.Heartbeat(t)
	agent := k.Attach(t, "trasher", k.Token(t, "agent:trasher"))
	ctx := Ctx(t)
	work := k.Dir
	data := make([]byte, maxBytes)
	for i := range data {
		data[i] = byte(i * 7)
	}
	// Ten times the byte bound, one file per rm.
	for i := range 10 {
		name := fmt.Sprintf("big%d", i)
		if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := agent.Exec(ctx, client.ExecParams{Src: "rm " + name}); err != nil {
			t.Fatalf("rm %s: %v", name, err)
		}
	}
	// Ten times the entry bound, one tree.
	tree := filepath.Join(work, "many")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 10 * maxEntries {
		if err := os.WriteFile(filepath.Join(tree, fmt.Sprint(i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := agent.Exec(ctx, client.ExecParams{Src: "rm many"}); err != nil {
		t.Fatalf("rm many: %v", err)
	}
	// The newest item is a small file, kept.
	if err := os.WriteFile(filepath.Join(work, "last"), []byte("newest"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := agent.Exec(ctx, client.ExecParams{Src: "(rm last).out.first().trash.str()"})
	if err != nil {
		t.Fatalf("rm last: %v", err)
	}
	var lastTrash string
	if err := decodeStr(res.Value, &lastTrash); err != nil {
		t.Fatalf("rm's trash path: %v (%s)", err, res.Value)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, n := trashUsage(t, k.StateDir)
		if b <= maxBytes && n <= maxEntries+4 { // + the principal's and process's directories
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the trash holds %d bytes and %d entries 30 s after the rm's, bounds %d and %d", b, n, maxBytes, maxEntries)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got, err := os.ReadFile(lastTrash); err != nil || string(got) != "newest" {
		t.Fatalf("the newest trash item %s: %q, %v", lastTrash, got, err)
	}
	for _, d := range hb.Stop(t) {
		if d > HeartbeatMax {
			t.Fatalf("the owner waited %v during the sweep", d)
		}
	}
	k.Alive(t)
}

// decodeStr reads a string value off the wire: a JSON string, or a tagged
// value whose "v" is one.
func decodeStr(raw []byte, out *string) error {
	if err := json.Unmarshal(raw, out); err == nil {
		return nil
	}
	var tagged struct {
		V string `json:"v"`
	}
	if err := json.Unmarshal(raw, &tagged); err != nil {
		return err
	}
	*out = tagged.V
	return nil
}
