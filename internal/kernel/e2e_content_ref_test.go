package kernel_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/client"
)

// A `val:blake3:` content ref names a blob of the kernel's journal/CAS:
// one a journal row of the caller names resolves to its bytes, one only
// another principal's rows name is not_found like a hash never stored, and
// the owner (journal_read_all) resolves both.
func TestE2EContentRefs(t *testing.T) {
	sock, dir, store := e2eDirs(t)
	state := filepath.Join(filepath.Dir(dir), "state")
	k := journalKernel(t, sock, dir, store, state)
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	worker := k.attached(t, "w", k.token(t, "agent:worker"))
	if _, err := owner.Exec(ctx, client.ExecParams{Src: `"owner-" + "secret"`}); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.Exec(ctx, client.ExecParams{Src: `"worker-" + "text"`}); err != nil {
		t.Fatal(err)
	}
	var ownRef, theirRef string
	var ownLen int64
	for _, e := range queryJournal(t, owner, map[string]any{}) {
		h := e.output("value")
		switch e.Src {
		case `"worker-" + "text"`:
			ownRef = "val:" + h
			for _, o := range e.Outputs {
				if o.Kind == "value" {
					ownLen = o.Len
				}
			}
		case `"owner-" + "secret"`:
			theirRef = "val:" + h
		}
	}
	if !strings.HasPrefix(ownRef, "val:blake3:") || !strings.HasPrefix(theirRef, "val:blake3:") {
		t.Fatalf("value outputs not found in the journal: %q %q", ownRef, theirRef)
	}
	run := func(c *client.Client, src string) string {
		t.Helper()
		r, err := c.Exec(ctx, client.ExecParams{Src: src})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return r.Render
	}
	for src, want := range map[string]string{
		fmt.Sprintf("%q.len", ownRef):                              strconv.FormatInt(ownLen, 10),
		fmt.Sprintf("%q.str.contains(%q)", ownRef, "worker-text"):  "true",
		fmt.Sprintf("%q.ref == %q", ownRef, ownRef):                "true",
		fmt.Sprintf("try { %q.len } catch e { e.code }", theirRef): "not_found",
		fmt.Sprintf("try { %q.str } catch e { e.message.ends_with(%q) }", theirRef, "not in the journal/CAS or not readable by you"): "true",
		fmt.Sprintf("try { %q.len } catch e { e.code }", "val:blake3:"+strings.Repeat("0", 64)):                                      "not_found",
		`"hello".len`: "5",
	} {
		if got := run(worker, src); got != want {
			t.Errorf("worker: %s = %s, want %s", src, got, want)
		}
	}
	// The journal table lists each row's outputs with their refs, so the
	// language reaches them without the wire.
	if _, err := worker.Exec(ctx, client.ExecParams{Src: "40 + 2"}); err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]string{
		`(journal --limit=10).where(e => e.src == "40 + 2").first().outputs.map(o => o.kind) == ["value"]`:       "true",
		`(journal --limit=10).where(e => e.src == "40 + 2").first().outputs.first().ref.str.contains("42")`:      "true",
		`let o = (journal --limit=10).where(e => e.src == "40 + 2").first().outputs.first(); o.ref.len == o.len`: "true",
		`let o = (journal --limit=10).where(e => e.src == "40 + 2").first().outputs.first(); o.ref.ref == o.ref`: "true",
	} {
		if got := run(owner, src); got != want {
			t.Errorf("owner: %s = %s, want %s", src, got, want)
		}
	}
	// The owner reads every row, so both refs resolve for it.
	if got := run(owner, fmt.Sprintf("%q.str.contains(%q)", theirRef, "owner-secret")); got != "true" {
		t.Errorf("owner resolving its own ref: %s", got)
	}
	if got := run(owner, fmt.Sprintf("%q.str.contains(%q)", ownRef, "worker-text")); got != "true" {
		t.Errorf("owner resolving the worker's ref: %s", got)
	}
	// A blob whose bytes no longer match its hash is not served: the value
	// is small, so its bytes are in the store's small-blob pack.
	packPath := filepath.Join(state, "cas", "small.pack")
	pack, err := os.ReadFile(packPath)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(pack), `"v":"worker-text"`)
	if at < 0 {
		t.Fatalf("the worker's value is not in the pack (%d bytes)", len(pack))
	}
	copy(pack[at+len(`"v":"`):], "tampered")
	if err := os.WriteFile(packPath, pack, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := run(worker, fmt.Sprintf("try { %q.str } catch e { e.code }", ownRef)); got != "io_error" {
		t.Errorf("a corrupted blob through a content ref: %s, want io_error", got)
	}
}
