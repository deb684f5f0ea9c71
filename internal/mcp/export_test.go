package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/client"
)

// OfferEveryRevision makes New offer every revision the SDK has,
// 2026-07-28 included, until the returned function is called.
func OfferEveryRevision() (restore func()) {
	old := offeredVersions
	offeredVersions = sdk.SupportedProtocolVersions
	return func() { offeredVersions = old }
}

// SetApprover gives f what Main gives it: the kernel's socket, the
// session and the approver token.
func SetApprover(f *Facade, path, session, token string) {
	f.path, f.attach = path, client.AttachParams{Session: session}
	f.approval = approval{token: token, wait: ApprovalWait}
}

// DirectCalls is how many calls the stdio direct path has served.
func DirectCalls() int64 { return directCalls.Load() }

// SetGenericExecArgs makes toolExec decode its arguments by
// json.Unmarshal alone (on) or read the plain ones itself (off).
func SetGenericExecArgs(on bool) { genericExecArgs.Store(on) }
