// Package userconfig is the shoal command's configuration for people: the
// user file $XDG_CONFIG_HOME/shoal/shoal.toml (default
// ~/.config/shoal/shoal.toml) and the prompt file prompt.toml beside it,
// decoded strictly into one typed Config that the line editor, the prompt
// and the display read. A missing file is the defaults; malformed TOML, a
// wrong type and a value outside its allowed set are errors with the file,
// line and column; a key the schema does not know is a warning, with a
// did-you-mean when one is close. It opens its two files and nothing else
// of the operating system.
package userconfig

// Config is the whole configuration, defaults filled in. Every field has a
// meaning when its file is absent; see Default.
type Config struct {
	// Version is the format version; only 1 is accepted.
	Version int `toml:"version"`
	// Prompt is the prompt: [prompt] in shoal.toml, overridden key by key
	// by the root of prompt.toml.
	Prompt Prompt `toml:"prompt"`
	// History is the line editor's history.
	History History `toml:"history"`
	// Render is how values and errors are shown.
	Render Render `toml:"render"`
	// Editor is the line editor's mode and keys.
	Editor Editor `toml:"editor"`
	// Completion tunes Tab completion.
	Completion Completion `toml:"completion"`
	// Colors are the styles of syntax highlighting and diagnostics.
	Colors Colors `toml:"colors"`
	// Aliases are command aliases defined at start (name → Shoal source).
	Aliases map[string]string `toml:"aliases"`
	// Env is set in the session's environment at start.
	Env map[string]string `toml:"env"`
	// Init lists Shoal files run, in order, when an interactive session starts.
	Init Init `toml:"init"`
	// Reef is the user's Reef scope ([reef.tools] ...), read by Reef
	// itself (docs/shoal.md, "Reef"); kept here only so its keys are
	// known.
	Reef map[string]any `toml:"reef"`
}

// History configures the line editor's history file.
type History struct {
	// Enabled keeps a history at all.
	Enabled bool `toml:"enabled"`
	// MaxEntries bounds the entries kept in the file (> 0, at most
	// MaxHistoryEntries).
	MaxEntries int `toml:"max_entries"`
	// Path is the history file ("" for the default under $XDG_STATE_HOME).
	Path string `toml:"path"`
	// Dedup skips an entry equal to the one before it.
	Dedup bool `toml:"dedup"`
	// Ignore lists whole-entry patterns (`*`, `?`) never recorded.
	Ignore []string `toml:"ignore"`
	// IgnoreSpace skips an entry that starts with a space.
	IgnoreSpace bool `toml:"ignore_space"`
}

// Paging values for Render.Paging.
const (
	// PagingAuto sends a table taller than the terminal through the pager.
	PagingAuto = "auto"
	// PagingHead prints the first rows of a tall table and a count line.
	PagingHead = "head"
	// PagingNever prints every row.
	PagingNever = "never"
)

// Time precisions for Render.TimePrecision.
const (
	PrecisionSecond = "second"
	PrecisionMilli  = "millisecond"
	PrecisionMicro  = "microsecond"
	PrecisionNano   = "nanosecond"
)

// Render configures display.
type Render struct {
	// Color allows ANSI colour on a terminal (NO_COLOR turns it off).
	Color bool `toml:"color"`
	// Width is the display width (0: the terminal's).
	Width int `toml:"width"`
	// Paging is what a table taller than the terminal does: "auto" (pager),
	// "head" (first rows and a count line) or "never".
	Paging string `toml:"paging"`
	// Pager is the pager command ("": $PAGER, else `less -FRX`).
	Pager string `toml:"pager"`
	// HeadRows is how many rows "head" paging prints (0: what fits the
	// terminal).
	HeadRows int `toml:"head_rows"`
	// TimePrecision is how finely datetimes are displayed: "second",
	// "millisecond", "microsecond" or "nanosecond".
	TimePrecision string `toml:"time_precision"`
}

// Editor modes.
const (
	ModeEmacs = "emacs"
	ModeVi    = "vi"
)

// Editor configures the line editor.
type Editor struct {
	// Mode is the keymap: "emacs" or "vi".
	Mode string `toml:"mode"`
	// BracketedPaste treats a paste as one input.
	BracketedPaste bool `toml:"bracketed_paste"`
	// Highlight colours the line from the lexer while typing.
	Highlight bool `toml:"highlight"`
	// Autosuggest shows a suggestion from history after the cursor.
	Autosuggest bool `toml:"autosuggest"`
	// Keybindings binds chords (inputrc spelling, e.g. "\\C-t") to editor
	// actions.
	Keybindings map[string]string `toml:"keybindings"`
}

// Completion configures Tab completion.
type Completion struct {
	// Fuzzy allows matches that are not prefixes.
	Fuzzy bool `toml:"fuzzy"`
	// CaseInsensitive folds case while matching.
	CaseInsensitive bool `toml:"case_insensitive"`
	// Menu shows a menu when candidates diverge.
	Menu bool `toml:"menu"`
	// MaxResults bounds the candidates offered (> 0).
	MaxResults int `toml:"max_results"`
}

// Colors are style strings (see ParseStyle): colour names, 0-255, #rrggbb,
// and the attributes bold, dim, italic, underline, with an optional "on
// COLOR" background. An empty string is no styling. The syntax keys are
// the line editor's token classes (internal/highlight's ClassNames); the
// diag_ keys colour diagnostics.
type Colors struct {
	// Syntax highlighting, by token class.
	Keyword  string `toml:"keyword"`
	Literal  string `toml:"literal"`
	Command  string `toml:"command"`
	String   string `toml:"string"`
	Number   string `toml:"number"`
	Flag     string `toml:"flag"`
	Operator string `toml:"operator"`
	Method   string `toml:"method"`
	Comment  string `toml:"comment"`
	Error    string `toml:"error"`
	Variable string `toml:"variable"`
	Path     string `toml:"path"`
	// Diagnostics: the error label, the hint label, the carets, and the
	// location arrow, line numbers and bars.
	DiagError  string `toml:"diag_error"`
	DiagHint   string `toml:"diag_hint"`
	DiagCaret  string `toml:"diag_caret"`
	DiagGutter string `toml:"diag_gutter"`
}

// Init lists startup files.
type Init struct {
	// Files are run in order when an interactive session starts.
	Files []string `toml:"files"`
}

// Prompt is the prompt's configuration (prompt.toml's root, or [prompt]).
type Prompt struct {
	// Template is the legacy one-line form ("{cwd}" etc.); used only when
	// Format.Left is empty.
	Template string `toml:"template"`
	// Format holds the format strings: `$module` placeholders in literal
	// text.
	Format PromptFormat `toml:"format"`
	// Style is the palette module styles may name.
	Style Palette `toml:"style"`
	// Module configures each module.
	Module Modules `toml:"module"`
	// Transient replaces a prompt, once its line is accepted, with
	// format.transient (when enabled), so the scrollback keeps short
	// prompts.
	Transient TransientPrompt `toml:"transient"`
}

// TransientPrompt turns the transient prompt on.
type TransientPrompt struct {
	Enabled bool `toml:"enabled"`
}

// PromptFormat holds the prompt's format strings.
type PromptFormat struct {
	// Left is the prompt before the input.
	Left string `toml:"left"`
	// Continuation is shown for the second and later lines of an entry.
	Continuation string `toml:"continuation"`
	// Right is shown at the right edge of the prompt's last line (""
	// for none).
	Right string `toml:"right"`
	// Transient is what an accepted line's prompt becomes when
	// [transient] is enabled.
	Transient string `toml:"transient"`
}

// Palette names styles that module styles may refer to by name.
type Palette struct {
	OK     string `toml:"ok"`
	Error  string `toml:"error"`
	Warn   string `toml:"warn"`
	Info   string `toml:"info"`
	Muted  string `toml:"muted"`
	Accent string `toml:"accent"`
}

// Modules configures the prompt's modules.
type Modules struct {
	Character   CharacterModule   `toml:"character"`
	Directory   DirectoryModule   `toml:"directory"`
	GitBranch   GitBranchModule   `toml:"git_branch"`
	ExitStatus  ExitStatusModule  `toml:"exit_status"`
	Username    HostModule        `toml:"username"`
	Hostname    HostModule        `toml:"hostname"`
	Time        TimeModule        `toml:"time"`
	Jobs        JobsModule        `toml:"jobs"`
	GitStatus   GitStatusModule   `toml:"git_status"`
	CmdDuration CmdDurationModule `toml:"cmd_duration"`
	Principal   PrincipalModule   `toml:"principal"`
	Leash       LeashModule       `toml:"leash"`
	Reef        ReefModule        `toml:"reef"`
}

// GitStatusModule marks the repository's state: ahead and behind its
// upstream, staged, unstaged, untracked and conflicted files. It runs
// git (with the repository's fsmonitor and optional locks off) once per
// prompt, bounded in time and output; see the shoal command's docs.
type GitStatusModule struct {
	Enabled    bool   `toml:"enabled"`
	Ahead      string `toml:"ahead"`
	Behind     string `toml:"behind"`
	Diverged   string `toml:"diverged"`
	Staged     string `toml:"staged"`
	Unstaged   string `toml:"unstaged"`
	Untracked  string `toml:"untracked"`
	Conflicted string `toml:"conflicted"`
	Style      string `toml:"style"`
	// Format: $all_status (the file marks), $ahead_behind.
	Format string `toml:"format"`
}

// CmdDurationModule shows how long the last line took, when it took at
// least MinMs.
type CmdDurationModule struct {
	Enabled bool   `toml:"enabled"`
	MinMs   int    `toml:"min_ms"`
	Style   string `toml:"style"`
	// Format: $duration.
	Format string `toml:"format"`
}

// PrincipalModule names who the session acts as: the person (HumanSymbol)
// or an agent's token principal (AgentSymbol).
type PrincipalModule struct {
	Enabled     bool   `toml:"enabled"`
	HumanSymbol string `toml:"human_symbol"`
	AgentSymbol string `toml:"agent_symbol"`
	Style       string `toml:"style"`
	// Format: $symbol, $name.
	Format string `toml:"format"`
}

// LeashModule shows the policy the session runs under: `allow-all`
// standalone, the kernel's policy otherwise.
type LeashModule struct {
	Enabled bool   `toml:"enabled"`
	Style   string `toml:"style"`
	// Format: $mode.
	Format string `toml:"format"`
}

// ReefModule shows the project environment: the tools Reef constrains in
// the directory, with their versions.
type ReefModule struct {
	Enabled bool   `toml:"enabled"`
	Style   string `toml:"style"`
	// Format: $tools.
	Format string `toml:"format"`
}

// CharacterModule is the symbol that ends the prompt.
type CharacterModule struct {
	Enabled       bool   `toml:"enabled"`
	SuccessSymbol string `toml:"success_symbol"`
	ErrorSymbol   string `toml:"error_symbol"`
	SuccessStyle  string `toml:"success_style"`
	ErrorStyle    string `toml:"error_style"`
}

// DirectoryModule is the working directory, home shown as HomeSymbol.
type DirectoryModule struct {
	Enabled bool `toml:"enabled"`
	// TruncateTo keeps the last N components (0: all).
	TruncateTo int `toml:"truncate_to"`
	// HomeSymbol replaces the home directory ("~").
	HomeSymbol string `toml:"home_symbol"`
	Style      string `toml:"style"`
	// Format is the module's text; $path is the directory.
	Format string `toml:"format"`
}

// GitBranchModule is the branch of the repository the directory is in,
// read from .git/HEAD (git is never run for it).
type GitBranchModule struct {
	Enabled bool   `toml:"enabled"`
	Symbol  string `toml:"symbol"`
	Style   string `toml:"style"`
	// TruncateTo shortens a long branch name to N characters (0: never).
	TruncateTo     int    `toml:"truncate_to"`
	TruncateSymbol string `toml:"truncate_symbol"`
	// Format: $symbol, $branch.
	Format string `toml:"format"`
}

// ExitStatusModule shows the last statement's status when it was not zero.
type ExitStatusModule struct {
	Enabled       bool   `toml:"enabled"`
	ShowOnSuccess bool   `toml:"show_on_success"`
	Style         string `toml:"style"`
	// Format: $status.
	Format string `toml:"format"`
}

// HostModule is the user or host name.
type HostModule struct {
	Enabled bool `toml:"enabled"`
	// ShowAlways shows it even outside SSH.
	ShowAlways bool   `toml:"show_always"`
	Style      string `toml:"style"`
	// Format: $name.
	Format string `toml:"format"`
}

// TimeModule is the clock.
type TimeModule struct {
	Enabled bool `toml:"enabled"`
	// Format is strftime-like: %H %M %S %Y %m %d.
	Format string `toml:"format"`
	Style  string `toml:"style"`
}

// JobsModule is the count of background jobs.
type JobsModule struct {
	Enabled bool   `toml:"enabled"`
	Symbol  string `toml:"symbol"`
	// Threshold is the least count shown (default 1).
	Threshold int    `toml:"threshold"`
	Style     string `toml:"style"`
	// Format: $symbol, $count.
	Format string `toml:"format"`
}

// DefaultPromptLeft is the default left prompt.
const DefaultPromptLeft = "$directory$git_branch$exit_status$character"

// Default is the configuration when no file says otherwise.
func Default() *Config {
	return &Config{
		Version: 1,
		History: History{Enabled: true, MaxEntries: 10000, Dedup: true, IgnoreSpace: true},
		Render: Render{Color: true, Paging: PagingHead,
			TimePrecision: PrecisionSecond},
		Editor:     Editor{Mode: ModeEmacs, BracketedPaste: true, Highlight: true, Autosuggest: true},
		Completion: Completion{Fuzzy: false, CaseInsensitive: false, Menu: true, MaxResults: 100},
		Colors: Colors{
			Keyword: "magenta", Literal: "yellow", Command: "bold blue", String: "green", Number: "yellow",
			Flag: "cyan", Method: "blue", Comment: "dim", Error: "red", Path: "underline",
			DiagError: "bold red", DiagHint: "cyan", DiagCaret: "bold red", DiagGutter: "blue",
		},
		Prompt: Prompt{
			Format: PromptFormat{Left: DefaultPromptLeft, Continuation: "... ", Transient: "$character"},
			Style:  Palette{OK: "green bold", Error: "red bold", Warn: "yellow bold", Info: "blue", Muted: "8", Accent: "magenta"},
			Module: Modules{
				Character:  CharacterModule{Enabled: true, SuccessSymbol: "> ", ErrorSymbol: "> ", SuccessStyle: "ok", ErrorStyle: "error"},
				Directory:  DirectoryModule{Enabled: true, HomeSymbol: "~", Style: "cyan bold", Format: "$path "},
				GitBranch:  GitBranchModule{Enabled: true, Symbol: "", Style: "magenta", TruncateSymbol: "…", Format: "($symbol$branch) "},
				ExitStatus: ExitStatusModule{Enabled: true, Style: "error", Format: "[$status] "},
				Username:   HostModule{Enabled: true, Style: "yellow", Format: "$name@"},
				Hostname:   HostModule{Enabled: true, Style: "green", Format: "$name "},
				Time:       TimeModule{Enabled: true, Format: "%H:%M:%S", Style: "dim"},
				Jobs:       JobsModule{Enabled: true, Symbol: "✦", Threshold: 1, Style: "blue", Format: "$symbol$count "},
				GitStatus: GitStatusModule{Enabled: true, Ahead: "⇡", Behind: "⇣", Diverged: "⇕", Staged: "+", Unstaged: "!",
					Untracked: "?", Conflicted: "=", Style: "red bold", Format: "[$all_status$ahead_behind] "},
				CmdDuration: CmdDurationModule{Enabled: true, MinMs: 2000, Style: "yellow", Format: "took $duration "},
				Principal:   PrincipalModule{Enabled: true, HumanSymbol: "", AgentSymbol: "agent:", Style: "blue", Format: "$symbol$name "},
				Leash:       LeashModule{Enabled: true, Style: "muted", Format: "[$mode] "},
				Reef:        ReefModule{Enabled: true, Style: "green", Format: "($tools) "},
			},
		},
	}
}
