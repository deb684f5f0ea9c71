package journal

import (
	"errors"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, id := range []int64{1, 2, 127, 128, 1 << 40, 1 << 62} {
		got, err := decodeCursor(encodeCursor(id))
		if err != nil || got != id {
			t.Errorf("round trip %d = %d, %v", id, got, err)
		}
	}
	for _, c := range []string{"", "j1", "j2AQE", "j1AA", "j1AQ", "j1!!!", "j1AgE", "x1AQE"} {
		if _, err := decodeCursor(c); !errors.Is(err, ErrBadQuery) {
			t.Errorf("decodeCursor(%q) = %v", c, err)
		}
	}
}

func FuzzDecodeCursor(f *testing.F) {
	f.Add(encodeCursor(1))
	f.Add(encodeCursor(1 << 40))
	f.Add("j1")
	f.Add("j1////")
	f.Add("")
	f.Fuzz(func(t *testing.T, c string) {
		id, err := decodeCursor(c)
		if err != nil {
			if !errors.Is(err, ErrBadQuery) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if id <= 0 {
			t.Fatalf("decoded non-positive id %d from %q", id, c)
		}
		if encodeCursor(id) != c {
			t.Fatalf("%q decodes to %d, which encodes as %q: two cursors for one position", c, id, encodeCursor(id))
		}
	})
}
