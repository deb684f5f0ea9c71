package lineedit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/shoalgo/shoal/internal/atomicfile"
)

// historyHeader is the first line of a history file in the format that
// keeps every entry whole: after it, one JSON string per line. A file
// without it is the older format (github.com/peterh/liner's), one entry
// per line, which is read and rewritten in the new format.
const historyHeader = "#shoal-history v1"

// History is the editor's history: entries whole (a multi-line entry is
// one), oldest first, at most a bound, mirrored to a private file that
// each new entry is appended to (so sessions side by side lose nothing,
// and a crash loses at most the entry being written). It satisfies the
// readline library's history source.
type History struct {
	mu      sync.Mutex
	entries []string
	max     int
	path    string // "" keeps the history in memory only
	// dedup: an entry equal to the one before it is not recorded again
	// (SetDedup).
	dedup bool
	// skipSpace and ignore are entries never recorded (SetIgnore).
	skipSpace bool
	ignore    []string
}

// SetIgnore sets which entries are never recorded: with space, one that
// starts with a space; and any that matches one of patterns as a whole
// (`*` any run of characters, `?` one). Patterns past the bounds (64, of
// 256 bytes each) are an error and none are set.
func (h *History) SetIgnore(space bool, patterns []string) error {
	if len(patterns) > maxIgnorePatterns {
		return fmt.Errorf("history: %d ignore patterns, at most %d", len(patterns), maxIgnorePatterns)
	}
	for _, p := range patterns {
		if len(p) > maxPatternBytes {
			return fmt.Errorf("history: ignore pattern %.20q…: longer than %d bytes", p, maxPatternBytes)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.skipSpace, h.ignore = space, append([]string(nil), patterns...)
	return nil
}

// SetDedup sets whether an entry equal to the one before it is recorded
// again.
func (h *History) SetDedup(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dedup = on
}

// ignored reports whether entry is never recorded.
func (h *History) ignored(entry string) bool {
	if h.skipSpace && strings.HasPrefix(entry, " ") {
		return true
	}
	for _, p := range h.ignore {
		if wildcard(p, entry) {
			return true
		}
	}
	return false
}

// wildcard matches s against p as a whole, `*` any run and `?` one byte
// of s, iteratively (at most len(p)*len(s) steps).
func wildcard(p, s string) bool {
	pi, si, star, mark := 0, 0, -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// OpenHistory reads the history file at path (missing is empty) and keeps
// at most max entries (0: DefaultHistorySize). The file is created
// private (0600, its directory 0700) on the first entry; an existing one
// with looser modes is made private. When the file is in the older
// format, or holds more than max entries, it is rewritten at once. A file
// that cannot be read gives an empty history and the error; entries are
// then kept in memory only.
func OpenHistory(path string, max int) (*History, error) {
	if max <= 0 {
		max = DefaultHistorySize
	}
	max = min(max, MaxHistorySize)
	h := &History{max: max, path: path}
	if path == "" {
		return h, nil
	}
	data, err := readTail(path, MaxHistoryFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		h.path = ""
		return h, fmt.Errorf("history %s: %w", path, err)
	}
	entries, current := DecodeHistory(data)
	if len(entries) > max {
		entries = entries[len(entries)-max:]
		current = false
	}
	h.entries = entries
	if !current {
		if err := h.rewrite(); err != nil {
			return h, err
		}
	} else {
		_ = os.Chmod(path, 0o600)
	}
	return h, nil
}

// readTail reads at most limit bytes from the end of the file at path;
// when it skipped a start, the partial first line is dropped.
func readTail(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() <= limit {
		return io.ReadAll(io.LimitReader(f, limit))
	}
	head := make([]byte, len(historyHeader)+1)
	n, _ := io.ReadFull(f, head)
	isCurrent := string(head[:n]) == historyHeader+"\n"
	if _, err := f.Seek(fi.Size()-limit, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, err
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[i+1:]
	}
	if !isCurrent {
		return data, nil
	}
	// The header was cut off with the start: keep saying the format.
	return append([]byte(historyHeader+"\n"), data...), nil
}

// DecodeHistory reads a history file's bytes: the entries, oldest first,
// and whether the file was in the current format. A current-format line
// that is not a JSON string is skipped, as is an entry longer than
// MaxEntryBytes or empty. It never fails: a history is a convenience.
func DecodeHistory(data []byte) (entries []string, current bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 2*MaxEntryBytes+16)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if line == historyHeader {
				current = true
				continue
			}
		}
		if current {
			var e string
			if json.Unmarshal([]byte(line), &e) != nil {
				continue
			}
			line = e
		}
		line = strings.ToValidUTF8(line, "\uFFFD")
		if keepable(line) {
			entries = append(entries, line)
		}
	}
	if err := sc.Err(); err != nil {
		// A line past the scanner's buffer ends the read; what came
		// before is kept, and the file is rewritten without the rest.
		current = false
	}
	return entries, current
}

// keepable reports whether an entry is remembered.
func keepable(e string) bool {
	return strings.TrimSpace(e) != "" && len(e) <= MaxEntryBytes
}

// encodeEntry is one entry's line in the current format.
func encodeEntry(e string) []byte {
	b, _ := json.Marshal(e) // a string always encodes
	return append(b, '\n')
}

// rewrite writes the whole history to its file atomically (a reader or a
// crash sees the old file or the new one).
func (h *History) rewrite() error {
	dir := filepath.Dir(h.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString(historyHeader + "\n")
	for _, e := range h.entries {
		buf.Write(encodeEntry(e))
	}
	if err := atomicfile.Write(h.path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Write adds an entry (the readline library calls it for each accepted
// buffer, a multi-line one whole) and appends it to the file. It returns
// the number of entries.
func (h *History) Write(entry string) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	entry = strings.ToValidUTF8(strings.TrimRight(entry, "\n"), "\uFFFD")
	if !keepable(entry) || h.ignored(entry) {
		return len(h.entries), nil
	}
	if h.dedup && len(h.entries) > 0 && h.entries[len(h.entries)-1] == entry {
		return len(h.entries), nil // the same as the entry before it
	}
	h.entries = append(h.entries, entry)
	if over := len(h.entries) - h.max; over > 0 {
		h.entries = append(h.entries[:0:0], h.entries[over:]...)
	}
	if h.path == "" {
		return len(h.entries), nil
	}
	if err := h.appendFile(entry); err != nil {
		return len(h.entries), err
	}
	return len(h.entries), nil
}

func (h *History) appendFile(entry string) error {
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		if _, err := f.WriteString(historyHeader + "\n"); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	if _, err := f.Write(encodeEntry(entry)); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// GetLine returns entry i, 0 the oldest.
func (h *History) GetLine(i int) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i < 0 || i >= len(h.entries) {
		return "", fmt.Errorf("history: no entry %d", i)
	}
	return h.entries[i], nil
}

// Len is the number of entries.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

// Dump returns a copy of the entries, oldest first.
func (h *History) Dump() any { return h.Entries() }

// Entries returns a copy of the entries, oldest first.
func (h *History) Entries() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.entries...)
}
