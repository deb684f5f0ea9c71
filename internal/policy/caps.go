package policy

import (
	"fmt"
	"slices"
	"strings"
)

// Caps is the token cap vocabulary. A token created with caps may use at
// most those dimensions of its principal's policy: each cap keeps one
// dimension of the grants, and a dimension no cap names is emptied.
// "approve" keeps approve and self_approve; "journal.read" keeps
// journal_read and journal_read_all. Caps never add to what policy grants.
var Caps = []string{
	"fs.read", "fs.write", "fs.delete",
	"proc.spawn",
	"net.connect", "net.listen",
	"env.read", "env.write",
	"secret.use",
	"session.write",
	"journal.read",
	"time",
	"sys.read",
	"approve",
}

// ValidateCaps reports the first cap not in Caps (shoal-token create
// refuses it, so a typo cannot silently mint a token that can do less, or
// more, than its creator meant).
func ValidateCaps(caps []string) error {
	for _, c := range caps {
		if !slices.Contains(Caps, c) {
			return fmt.Errorf("unknown cap %q (known: %s)", c, strings.Join(Caps, ", "))
		}
	}
	return nil
}

// Narrow returns the grants a token with tokenCaps has: the receiver with
// every dimension that no cap names taken away. No caps (nil or empty)
// leaves the grants unchanged: such a token carries its principal's whole
// policy. An unknown cap narrows nothing by itself (ValidateCaps refuses
// those at create). The controls auto_apply, opaque and hermetic are kept.
func (g *Grants) Narrow(tokenCaps []string) *Grants {
	if g == nil {
		return nil
	}
	c := g.clone()
	if len(tokenCaps) == 0 {
		return c
	}
	has := func(name string) bool { return slices.Contains(tokenCaps, name) }
	if !has("fs.read") {
		c.FSRead = nil
	}
	if !has("fs.write") {
		c.FSWrite = nil
	}
	if !has("fs.delete") {
		c.FSDelete = nil
	}
	if !has("proc.spawn") {
		c.ProcSpawn = nil
	}
	if !has("net.connect") {
		c.NetConnect = nil
	}
	if !has("net.listen") {
		c.NetListen, c.NetListenAny = nil, false
	}
	if !has("env.read") {
		c.EnvRead = nil
	}
	if !has("env.write") {
		c.EnvWrite = nil
	}
	if !has("secret.use") {
		c.SecretUse = nil
	}
	if !has("session.write") {
		c.SessionWrite = false
	}
	if !has("journal.read") {
		c.JournalRead, c.JournalReadAll = false, false
	}
	if !has("time") {
		c.Time = false
	}
	if !has("sys.read") {
		c.SysRead = nil
	}
	if !has("approve") {
		c.Approve, c.SelfApprove = false, false
	}
	return c
}
