package proto

// EffectKinds is the wire vocabulary of effect kinds: what a plan's and a
// journal entry's effects name, what cap.request and journal.query accept.
var EffectKinds = []string{
	"fs_read", "fs_write", "fs_delete", "proc_spawn",
	"net_connect", "net_listen", "env_read", "env_write",
	"secret_use", "session_write", "journal_read", "time",
	"sys_read", "opaque",
}
