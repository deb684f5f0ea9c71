package lsp

import (
	"fmt"
	"testing"
)

// TestTooLargeNamesItsLimit: errTooLarge, written out as a literal (no
// initialiser formats it at start), names MaxDocumentBytes.
func TestTooLargeNamesItsLimit(t *testing.T) {
	if want := fmt.Sprintf("document exceeds %d bytes", MaxDocumentBytes); errTooLarge.Error() != want {
		t.Fatalf("errTooLarge = %q; want %q", errTooLarge, want)
	}
}
