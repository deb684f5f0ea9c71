package lsp

import "github.com/shoalgo/shoal/internal/complete"

// mergeCandidates is the session's candidates, then the document's that
// the session did not offer (names the document declares but the session
// has not run), at most complete.MaxCandidates.
func mergeCandidates(session, local []complete.Candidate) []complete.Candidate {
	seen := make(map[string]bool, len(session))
	out := make([]complete.Candidate, 0, min(len(session)+len(local), complete.MaxCandidates))
	for _, list := range [][]complete.Candidate{session, local} {
		for _, c := range list {
			if len(out) >= complete.MaxCandidates {
				return out
			}
			if !seen[c.Label] {
				seen[c.Label] = true
				out = append(out, c)
			}
		}
	}
	return out
}
