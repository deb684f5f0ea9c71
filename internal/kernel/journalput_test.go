package kernel

import (
	"bytes"
	"testing"

	"github.com/shoalgo/shoal/internal/cas"
)

// TestJournalPutAddressIsContentHash: the blob journalStore.put stores
// (hashed once, by the store) is at its content's hash, and so is the
// output record naming it; putting it again finds it known and names the
// same address; a forgotten hash is stored again.
func TestJournalPutAddressIsContentHash(t *testing.T) {
	j, err := openJournal(t.TempDir(), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	data := []byte(`{"exit":0,"program":"/bin/true"}`)
	o, err := j.put("value", data)
	if err != nil {
		t.Fatal(err)
	}
	if o.Hash != cas.Sum(data) || o.Len != int64(len(data)) || o.Kind != "value" {
		t.Fatalf("output %+v, content hash %s", o, cas.Sum(data))
	}
	got, err := j.cas.Load(o.Hash, 1<<20)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Load = %q, %v", got, err)
	}
	if !j.isKnown(o.Hash) {
		t.Fatal("a stored blob is not known")
	}
	again, err := j.put("value", data)
	if err != nil || again != o {
		t.Fatalf("again %+v, %v; want %+v", again, err, o)
	}
	j.forget(o.Hash)
	if j.isKnown(o.Hash) {
		t.Fatal("forget left the hash known")
	}
	if o2, err := j.put("value", data); err != nil || o2 != o || !j.isKnown(o.Hash) {
		t.Fatalf("after forget %+v, %v", o2, err)
	}
}
