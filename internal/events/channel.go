package events

import (
	"strconv"
	"strings"
)

// Channel names produced by the kernel.
const (
	ChannelJournal    = "journal"
	ChannelApproval   = "approval"
	ChannelTranscript = "session.transcript"
	ChannelRender     = "render"

	// TaskPrefix, PTYPrefix and UserPrefix start task.N, pty.N and
	// user.* names.
	TaskPrefix = "task."
	PTYPrefix  = "pty."
	UserPrefix = "user."
)

// IsGlobal reports whether channel has one stream for the whole kernel
// (journal, approval) rather than one per scope.
func IsGlobal(channel string) bool {
	return channel == ChannelJournal || channel == ChannelApproval
}

// CanClientPublish reports whether a client may publish on channel: only
// user.<suffix>, where the suffix is one or more dot-separated segments
// of ASCII letters, digits, '_' and '-', within MaxChannelName bytes.
func CanClientPublish(channel string) bool {
	suffix, ok := strings.CutPrefix(channel, UserPrefix)
	return ok && len(channel) <= MaxChannelName && validSegments(suffix)
}

// ValidChannel reports whether channel is a name the bus knows how to
// route: a kernel channel, task.N or pty.N with N a decimal number, or a
// user.* name that CanClientPublish accepts.
func ValidChannel(channel string) bool {
	switch channel {
	case ChannelJournal, ChannelApproval, ChannelTranscript, ChannelRender:
		return true
	}
	if n, ok := strings.CutPrefix(channel, TaskPrefix); ok {
		return n != "" && len(n) <= 20 && allDigits(n)
	}
	if n, ok := strings.CutPrefix(channel, PTYPrefix); ok {
		return n != "" && len(n) <= 20 && allDigits(n)
	}
	return CanClientPublish(channel)
}

// TaskChannel returns the channel name of task id.
func TaskChannel(id uint64) string {
	return TaskPrefix + strconv.FormatUint(id, 10)
}

// PTYChannel returns the channel name of PTY id (pty:N is pty.N).
func PTYChannel(id uint64) string {
	return PTYPrefix + strconv.FormatUint(id, 10)
}

func validSegments(s string) bool {
	if s == "" {
		return false
	}
	segLen := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if segLen == 0 {
				return false
			}
			segLen = 0
			continue
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
		segLen++
	}
	return segLen > 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
