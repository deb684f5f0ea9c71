//go:build linux

package cas

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// On Linux the pack is appended to through its mapping: its file is
// allocated up to a page ahead of its records, zeros past them. Another Open of the
// store while it is so (as after a kill -9) reads every record, cuts the
// zeros off, and appends after the records.
func TestSmallBlobPackMapped(t *testing.T) {
	s := open(t)
	if s.small.m == nil {
		t.Fatal("the pack is not mapped")
	}
	var hs []string
	for i := range 50 {
		h, err := s.Put(fmt.Appendf(nil, "blob %d", i))
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	end := packSize(t, s) // checks the zeros past the records
	fi, err := os.Stat(filepath.Join(s.Dir(), packName))
	if err != nil {
		t.Fatal(err)
	}
	if page := int64(os.Getpagesize()); fi.Size() <= end || fi.Size()%page != 0 || fi.Size() > end+page {
		t.Fatalf("the pack's file is %d bytes for records ending at %d: not allocated a page ahead", fi.Size(), end)
	}
	s2, err := Open(s.Dir()) // s left open, as a killed process leaves it
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := packSize(t, s2); got != end {
		t.Fatalf("reopened: records end at %d, want %d", got, end)
	}
	for i, h := range hs {
		if got, _, err := s2.Get(h, 0, 0); err != nil || string(got) != fmt.Sprintf("blob %d", i) {
			t.Fatalf("reopened: blob %d = %q, %v", i, got, err)
		}
	}
	h, err := s2.Put([]byte("after the reopen"))
	if err != nil {
		t.Fatal(err)
	}
	if got := packSize(t, s2); got <= end {
		t.Fatalf("a Put after the reopen: records end at %d, was %d", got, end)
	}
	s2.Close()
	s3 := reopen(t, s)
	if got, _, err := s3.Get(h, 0, 0); err != nil || string(got) != "after the reopen" {
		t.Fatalf("the blob put after the reopen: %q, %v", got, err)
	}
}
