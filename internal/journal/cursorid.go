package journal

// CursorAfter returns the cursor of the page that follows the entry id:
// the entries older than it. A client holding a page (a JSON array, as
// journal.query answers) names the next page by its last entry's id; the
// kernel turns that id into this cursor.
func CursorAfter(id int64) string { return encodeCursor(id) }
