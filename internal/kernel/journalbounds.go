package kernel

import (
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/proto"
)

// refBudgetError is blob.get's answer when the journal could not tell
// within its bound (journal.MaxRefScanRows rows of each side) whether a row
// the caller may read names the blob: the blob is not served (fail
// closed), and the caller is told why rather than that it is unknown.
func refBudgetError(h string) error {
	return proto.NewError(proto.CodeInvalidParams,
		"invalid params: blob "+quoteRef(h)+" is named by more rows, and the caller has more rows, than one look-up may walk",
		map[string]any{"bound": "journal.MaxRefScanRows", "max": journal.MaxRefScanRows})
}
