package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shoalgo/shoal/proto"
)

// A tool's annotations (readOnlyHint, destructiveHint, idempotentHint,
// openWorldHint) are derived from the effect kinds its call can cause
// (toolEffects), each kind's traits given once below; none is written by
// hand per tool (TestAnnotationsFollowEffects).

// procSignal names what the kernel's effect vocabulary has no kind for:
// ending or signalling a process the session started (task.cancel,
// pty.close).
const procSignal = "proc_signal"

// kindTraits are what an effect kind does to the world: observes only,
// destroys or overwrites something, is harmless to repeat, reaches beyond
// the machine's files (the network, or programs that may do anything).
type kindTraits struct {
	readOnly, destructive, idempotent, openWorld bool
}

// traits of every kind of proto.EffectKinds, and of procSignal.
var traits = map[string]kindTraits{
	"fs_read":       {readOnly: true, idempotent: true},
	"env_read":      {readOnly: true, idempotent: true},
	"secret_use":    {readOnly: true, idempotent: true},
	"journal_read":  {readOnly: true, idempotent: true},
	"time":          {readOnly: true, idempotent: true},
	"sys_read":      {readOnly: true, idempotent: true},
	"env_write":     {idempotent: true},
	"session_write": {},
	"net_listen":    {openWorld: true},
	"fs_write":      {destructive: true},
	"fs_delete":     {destructive: true},
	"net_connect":   {destructive: true, openWorld: true},
	"proc_spawn":    {destructive: true, openWorld: true},
	"opaque":        {destructive: true, openWorld: true},
	procSignal:      {destructive: true, idempotent: true},
}

// toolEffects is the one function that says which effect kinds a call of
// the named tool can cause. Running Shoal source (shoal_exec, shoal_apply)
// can cause any; keys typed into a PTY's program can do whatever that
// program does (opaque); the rest cause what their kernel method does.
func toolEffects(name string) []string {
	switch name {
	case "shoal_exec", "shoal_apply":
		return proto.EffectKinds
	case "shoal_plan", "shoal_cap_request", "shoal_pty_resize":
		return []string{"session_write"} // a stored plan, an approval, a terminal size
	case "shoal_journal":
		return []string{"journal_read"}
	case "shoal_cancel", "shoal_pty_close":
		return []string{procSignal}
	case "shoal_pty_open":
		return []string{"proc_spawn"}
	case "shoal_pty_send":
		return []string{"opaque"}
	}
	return nil // shoal_get, shoal_pty_read, shoal_pty_list read the session's own state
}

// annotations derives a tool's hints from the effect kinds it can cause:
// read-only when every kind only observes, destructive when any kind
// destroys, idempotent when every kind is, open-world when any kind is.
func annotations(kinds []string) *sdk.ToolAnnotations {
	ro, destructive, idem, open := true, false, true, false
	for _, k := range kinds {
		t, ok := traits[k]
		if !ok {
			t = traits["opaque"] // a kind without traits is assumed to do anything
		}
		ro = ro && t.readOnly
		destructive = destructive || t.destructive
		idem = idem && t.idempotent
		open = open || t.openWorld
	}
	return &sdk.ToolAnnotations{ReadOnlyHint: ro, DestructiveHint: &destructive, IdempotentHint: idem, OpenWorldHint: &open}
}
