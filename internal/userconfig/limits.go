package userconfig

// Bounds on what a configuration file may make the shell keep.
const (
	// MaxFileBytes bounds one configuration file; a larger one is an error.
	MaxFileBytes = 256 << 10
	// MaxHistoryEntries bounds history.max_entries.
	MaxHistoryEntries = 1_000_000
	// MaxMapEntries bounds aliases, env and editor.keybindings each.
	MaxMapEntries = 4096
	// MaxListEntries bounds history.ignore and init.files each.
	MaxListEntries = 1024
	// MaxFormatBytes bounds a prompt format string or symbol.
	MaxFormatBytes = 1024
	// MaxWarnings bounds the warnings kept for one load.
	MaxWarnings = 64
)
