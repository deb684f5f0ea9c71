package mcp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The multi round-trip form of the approval question (protocol
// 2026-07-28 and later): the first round answers the question as an
// input request with a state naming the plan; the client calls again
// with the person's answer and that state. The state is signed with a
// key of this process, bound to the plan and the call's source, so a
// client cannot name another plan than the one it was asked about.

// approvalInputKey is the input request's key.
const approvalInputKey = "shoal_approval"

// stateKey is this process's key for signing request states.
var stateKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // never fails (it crashes the process rather)
	return k
})

func stateMAC(ref, src string) string {
	m := hmac.New(sha256.New, stateKey())
	m.Write([]byte(ref))
	m.Write([]byte{0})
	m.Write([]byte(src))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// signState is the request state of a question about plan ref for src.
func signState(ref, src string) string { return ref + "." + stateMAC(ref, src) }

// verifyState returns the plan a request state names, when this process
// signed it for src.
func verifyState(state, src string) (string, bool) {
	ref, mac, ok := strings.Cut(state, ".")
	if !ok || !strings.HasPrefix(ref, "plan:") || !hmac.Equal([]byte(mac), []byte(stateMAC(ref, src))) {
		return "", false
	}
	return ref, true
}

// retried reports whether req is the second round of an approval
// question: a valid state for src and an elicitation answer.
func retried(req *sdk.CallToolRequest, src string) (string, *sdk.ElicitResult, bool) {
	if req == nil || req.Params == nil || req.Params.RequestState == "" {
		return "", nil, false
	}
	ref, ok := verifyState(req.Params.RequestState, src)
	if !ok {
		return "", nil, false
	}
	answer, ok := req.Params.InputResponses[approvalInputKey].(*sdk.ElicitResult)
	if !ok || answer == nil {
		return "", nil, false
	}
	return ref, answer, true
}

// multiRoundTrip reports whether the call's client speaks a revision in
// which the server asks through input requests (2026-07-28 and later).
func multiRoundTrip(req *sdk.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}
