package kernel

import (
	"github.com/shoalgo/shoal/internal/journal"
	"github.com/shoalgo/shoal/proto"
)

// scanBudgetError is journal.query's answer when the page's walk went
// through journal.MaxQueryScanRows rows without finding one that matches
// (a wide since/until window of old rows, a rare effect kind): not an
// empty page, which would say the end, but -32602 with the cursor to ask
// again with in its data (the id, or own id, the walk stopped above).
func scanBudgetError(sb *journal.ScanBudgetError) error {
	return proto.NewError(proto.CodeInvalidParams,
		"invalid params: no entry matched in the rows one journal.query page may walk; ask again with data.cursor",
		map[string]any{"cursor": sb.Before, "bound": "journal.MaxQueryScanRows", "max": journal.MaxQueryScanRows})
}

// refBudgetError is blob.get's answer when the journal could not tell
// within its bound (journal.MaxRefScanRows rows of each side) whether a row
// the caller may read names the blob: the blob is not served (fail
// closed), and the caller is told why rather than that it is unknown.
func refBudgetError(h string) error {
	return proto.NewError(proto.CodeInvalidParams,
		"invalid params: blob "+quoteRef(h)+" is named by more rows, and the caller has more rows, than one look-up may walk",
		map[string]any{"bound": "journal.MaxRefScanRows", "max": journal.MaxRefScanRows})
}
