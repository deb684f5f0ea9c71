package proto

import "encoding/json"

// PTYOpenParams are the params of pty.open: the program (looked up on the
// session's PATH), its arguments, the terminal's size (1..1000 each) and
// environment overrides.
type PTYOpenParams struct {
	Cmd  *string           `json:"cmd"`
	Args []string          `json:"args,omitempty"`
	Cols *int              `json:"cols,omitempty"`
	Rows *int              `json:"rows,omitempty"`
	Env  map[string]string `json:"env,omitempty"`
}

// PTYSelector names a PTY: the params of pty.close, and the first member
// of the other pty.* params.
type PTYSelector struct {
	PtyID *string `json:"pty_id"`
}

// PTYSendParams are the params of pty.send: Input is a string, or a list
// of strings and {"key": NAME} objects.
type PTYSendParams struct {
	PTYSelector
	Input json.RawMessage `json:"input"`
}

// PTYReadParams are the params of pty.read: Scrollback lines of history,
// Styles (colours and attributes per row), and WaitMS to wait for a
// change (UntilChange: only until one).
type PTYReadParams struct {
	PTYSelector
	Scrollback  *int   `json:"scrollback,omitempty"`
	Styles      bool   `json:"styles,omitempty"`
	WaitMS      *int64 `json:"wait_ms,omitempty"`
	UntilChange bool   `json:"until_change,omitempty"`
}

// PTYResizeParams are the params of pty.resize; both sizes are required.
type PTYResizeParams struct {
	PTYSelector
	Cols *int `json:"cols"`
	Rows *int `json:"rows"`
}

// PTYInfo is a PTY's program and terminal: pid, size, whether it runs.
type PTYInfo struct {
	Pid   int  `json:"pid"`
	Cols  int  `json:"cols"`
	Rows  int  `json:"rows"`
	Alive bool `json:"alive"`
}

// PTYSummary is the result of pty.open and pty.resize and an entry of
// pty.list: the PTY, its program and its event channel.
type PTYSummary struct {
	PtyID  string `json:"pty_id"`
	Cmd    string `json:"cmd"`
	Events string `json:"events"`
	PTYInfo
}

// PTYList is the result of pty.list.
type PTYList struct {
	Ptys []PTYSummary `json:"ptys"`
}

// PTYSent is the result of pty.send: the bytes written.
type PTYSent struct {
	PtyID   string `json:"pty_id"`
	Written int    `json:"written"`
}

// PTYExit is how a PTY's program ended; both null while it runs.
type PTYExit struct {
	Status *int    `json:"status"`
	Signal *string `json:"signal"`
}

// PTYClosed is the result of pty.close, once the program is reaped. (Exit
// comes first on the wire, as it always has.)
type PTYClosed struct {
	Exit  *PTYExit `json:"exit"`
	PtyID string   `json:"pty_id"`
}

// PTYCursor is the cursor of a PTY's screen.
type PTYCursor struct {
	Row    int  `json:"row"`
	Col    int  `json:"col"`
	Hidden bool `json:"hidden"`
}

// PTYSpan is a run of cells of one style in a screen row: Fg and Bg are a
// palette index (0-255) or "#rrggbb".
type PTYSpan struct {
	Col   int      `json:"col"`
	Len   int      `json:"len"`
	Fg    any      `json:"fg,omitempty"`
	Bg    any      `json:"bg,omitempty"`
	Attrs []string `json:"attrs,omitempty"`
}

// PTYSnapshot is a PTY's screen as text, with cursor and state.
type PTYSnapshot struct {
	Cols   int       `json:"cols"`
	Rows   int       `json:"rows"`
	Cursor PTYCursor `json:"cursor"`
	Screen []string  `json:"screen"`
	// Changed: the screen (text or cursor) differs from what the previous
	// read returned (always true for the first read and after a resize).
	Changed bool     `json:"changed"`
	Alive   bool     `json:"alive"`
	Exit    *PTYExit `json:"exit"`
	Pid     int      `json:"pid"`
	// Skipped counts the output bytes skipped unrendered because the
	// program wrote faster than the emulator rendered.
	Skipped    int64       `json:"skipped_bytes"`
	Scrollback []string    `json:"scrollback,omitempty"`
	Styles     [][]PTYSpan `json:"styles,omitempty"`
}

// PTYScreen is the result of pty.read.
type PTYScreen struct {
	PtyID string `json:"pty_id"`
	Cmd   string `json:"cmd"`
	PTYSnapshot
}

// PTYEvent is the payload of an event on a PTY's channel (pty.N): the
// screen changed, or the program exited.
type PTYEvent struct {
	PtyID string   `json:"pty_id"`
	Kind  string   `json:"kind"`
	Alive bool     `json:"alive"`
	Exit  *PTYExit `json:"exit"`
}
