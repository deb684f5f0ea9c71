//go:build linux

package hostile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/shoalgo/shoal/client"
)

// casFiles counts the blob files of the state directory's blob store (the
// pack and temporary files left out).
func casFiles(t *testing.T, stateDir string) int {
	t.Helper()
	n := 0
	root := filepath.Join(stateDir, "cas")
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(filepath.Dir(p)) == root {
			n++
		}
		return nil
	})
	return n
}

// The small-blob pack's bounds through the real kernel binary under a
// memory cap: an agent makes ten times --journal-small-blobs distinct
// small outputs; the pack stops growing at the bound (further blobs are
// files), every output stays served by blob.get, the kernel stays up and
// serves the owner all along, and a kernel reopening the state directory
// serves the same blobs.
func TestHostileSmallBlobPack(t *testing.T) {
	const (
		bound      = 32
		recordMax  = 4 + 8 + 32 + 512 // a pack record's header and its largest data
		packBudget = 1 << 20          // well above bound records: the count bound is the one crossed
	)
	k := Start(t, Options{MemCap: 2 << 30, Flags: []string{
		"--journal-small-blobs", fmt.Sprint(bound), "--journal-pack-bytes", fmt.Sprint(packBudget)}})
	ctx := Ctx(t)
	hb := k.Heartbeat(t)
	agent := k.Attach(t, "packer", k.Token(t, "agent:packer"))
	for i := range 10 * bound {
		src := fmt.Sprintf("%q", fmt.Sprintf("small output %d of a hostile agent", i))
		if _, err := agent.Exec(ctx, client.ExecParams{Src: src}); err != nil {
			t.Fatalf("exec %d: %v", i, err)
		}
	}
	hb.Stop(t)
	k.Alive(t)

	fi, err := os.Stat(filepath.Join(k.StateDir, "cas", "small.pack"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > bound*recordMax {
		t.Errorf("the pack is %d bytes: more than %d records of at most %d bytes", fi.Size(), bound, recordMax)
	}
	files := casFiles(t, k.StateDir)
	if files < 9*bound {
		t.Errorf("%d blob files: the blobs past the pack's bound should be files", files)
	}
	t.Logf("pack %d bytes, %d blob files after %d small outputs", fi.Size(), files, 10*bound)

	// Every output is still served, from the pack or from its file.
	owner := k.Owner(t)
	var rows []retentionRow
	if err := owner.Call(ctx, "journal.query", map[string]any{"principal": "agent:packer", "limit": 10 * bound}, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10*bound {
		t.Fatalf("journal.query: %d rows, want %d", len(rows), 10*bound)
	}
	served := func(c *client.Client) int {
		n := 0
		for _, r := range rows {
			for _, o := range r.Outputs {
				if o.Kind != "value" {
					continue
				}
				b, err := c.BlobGet(ctx, o.Hash, 0, 0)
				if err != nil {
					t.Fatalf("blob.get %s of row %d: %v", o.Hash, r.ID, err)
				}
				if b.Len != o.Len || len(b.Value) == 0 {
					t.Fatalf("blob.get %s: len %d and %d bytes of value; the row says %d", o.Hash, b.Len, len(b.Value), o.Len)
				}
				n++
			}
		}
		return n
	}
	if n := served(owner); n < 10*bound {
		t.Fatalf("%d value blobs served, want one per exec", n)
	}

	// A kernel reopening the directory with the default bounds serves them.
	k.Stop(t)
	k2 := Start(t, Options{MemCap: 2 << 30, StateDir: k.StateDir})
	if n := served(k2.Owner(t)); n < 10*bound {
		t.Fatalf("after reopening, %d value blobs served", n)
	}
}
