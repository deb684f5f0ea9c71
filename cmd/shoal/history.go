package main

// `shoal history`: the journal of a running kernel, as a table or JSON.
// The journal lives in shoal-kernel (<state-dir>/journal.db); the
// standalone shoal keeps none, so this command always asks a kernel over
// its socket, attaching as the kernel owner's local principal (or with
// --token / SHOAL_TOKEN) and calling journal.query.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/proto"
)

const historyUsage = `usage: shoal history [flags]

Lists a running kernel's journal, newest first: your own entries, or
everyone's when your policy grants journal_read_all.

Filters:
  --head=WORD         entries whose source starts with the command WORD
  --principal=NAME    entries of principal NAME
  --session=NAME      entries of kernel session NAME
  --ok=BOOL, --failed entries that succeeded (true) or failed
  --effect=KIND       entries with an effect of KIND (repeatable: all of)
  --since=T --until=T start time bounds (RFC 3339, or Unix ns)
  --limit=N           at most N entries (1 to 1000, default 20)
  --cursor=ID         the page after entry ID (printed when there are more)
Output and connection:
  --json              print journal.query's answer as JSON
  --socket=PATH       the kernel's socket (default $SHOAL_SOCKET, else discovered for --attach)
  --attach=NAME       the kernel session to attach to (default "default")
  --token=TOKEN       attach with a token (default $SHOAL_TOKEN)
`

// historyDefaultLimit is how many entries shoal history lists without
// --limit.
const historyDefaultLimit = 20

// historyTimeout bounds the whole exchange with the kernel.
const historyTimeout = 30 * time.Second

// historySrcWidth is how much of an entry's source the table shows.
const historySrcWidth = 60

// effectFlags collects repeated --effect flags.
type effectFlags []string

func (e *effectFlags) String() string { return strings.Join(*e, ",") }
func (e *effectFlags) Set(s string) error {
	if s == "" {
		return errors.New("an effect kind such as fs_delete")
	}
	*e = append(*e, s)
	return nil
}

// history runs `shoal history ARGS`.
func history(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shoal history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, historyUsage) }
	var (
		p                  client.JournalQueryParams
		okText, since, til string
		effects            effectFlags
	)
	fs.StringVar(&p.Head, "head", "", "")
	fs.StringVar(&p.Principal, "principal", "", "")
	fs.StringVar(&p.Session, "session", "", "")
	fs.StringVar(&okText, "ok", "", "")
	failed := fs.Bool("failed", false, "")
	fs.Var(&effects, "effect", "")
	fs.StringVar(&since, "since", "", "")
	fs.StringVar(&til, "until", "", "")
	fs.IntVar(&p.Limit, "limit", historyDefaultLimit, "")
	fs.Int64Var((*int64)(&p.Cursor), "cursor", 0, "")
	asJSON := fs.Bool("json", false, "")
	socket := fs.String("socket", "", "")
	attach := fs.String("attach", "default", "")
	token := fs.String("token", os.Getenv("SHOAL_TOKEN"), "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "shoal history: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected arguments %q", fs.Args())
	}
	if p.Limit < 1 || p.Limit > proto.JournalMaxLimit {
		return usageErr("--limit must be from 1 to %d (the kernel's largest page)", proto.JournalMaxLimit)
	}
	if p.Cursor < 0 {
		return usageErr("--cursor is an entry id")
	}
	if okText != "" {
		b, err := strconv.ParseBool(okText)
		if err != nil {
			return usageErr("--ok=%s: want true or false", okText)
		}
		p.OK = &b
	}
	if *failed {
		if p.OK != nil && *p.OK {
			return usageErr("--failed contradicts --ok=true")
		}
		no := false
		p.OK = &no
	}
	p.Effects = effects
	for _, b := range []struct {
		text string
		dst  **int64
		name string
	}{{since, &p.Since, "since"}, {til, &p.Until, "until"}} {
		if b.text == "" {
			continue
		}
		ns, err := historyTime(b.text)
		if err != nil {
			return usageErr("--%s: %v", b.name, err)
		}
		*b.dst = &ns
	}

	path := *socket
	if path == "" {
		path = client.DefaultSocketPath(*attach)
	}
	ctx, cancel := context.WithTimeout(ctx, historyTimeout)
	defer cancel()
	c, err := client.Dial(ctx, path)
	if err != nil {
		fmt.Fprintf(stderr, "shoal history: no kernel at %s: %v\n", path, err)
		fmt.Fprintln(stderr, "hint: the journal is kept by shoal-kernel; start one, or name its socket with --socket")
		return 1
	}
	defer c.Close()
	if _, err := c.Attach(ctx, client.AttachParams{Session: *attach, Token: *token, Client: &client.ClientInfo{Kind: "cli"}}); err != nil {
		return historyFail(stderr, err)
	}
	// The answer is a bare array, so one entry more than shown is asked
	// for: it says whether there is a next page. An answer without it may
	// still have one (see morePast).
	want := p.Limit
	p.Limit = min(want+1, proto.JournalMaxLimit)
	entries, raw, err := c.JournalQuery(ctx, p)
	if err != nil {
		return historyFail(stderr, err)
	}
	more := len(entries) > want
	if !more && len(entries) > 0 {
		if more, err = morePast(ctx, c, p, entries[len(entries)-1].ID); err != nil {
			return historyFail(stderr, err)
		}
	}
	if len(entries) > want {
		entries = entries[:want]
		if raw, err = firstElements(raw, want); err != nil {
			return historyFail(stderr, err)
		}
	}
	if *asJSON {
		var buf bytes.Buffer
		if err := json.Indent(&buf, raw, "", "  "); err != nil {
			return historyFail(stderr, err)
		}
		buf.WriteByte('\n')
		_, _ = stdout.Write(buf.Bytes())
	} else {
		writeHistoryTable(stdout, entries)
	}
	if more && !*asJSON && len(entries) > 0 {
		fmt.Fprintf(stderr, "more: shoal history --cursor=%d\n", entries[len(entries)-1].ID)
	}
	return 0
}

// morePast reports whether query p has an entry past entry id (its
// cursor). journal.query answers a bare array of at most limit entries,
// and fewer in two cases it does not tell apart: the journal ended, or
// the page reached the kernel's byte bound (MaxPageBytes, 8 MiB of
// source, AST, effects and outputs: a few entries of large source end a
// page early). A page holding every entry asked for may also be followed
// by more, at the kernel's largest page where the extra entry did not
// fit. So whenever the extra entry did not come, the same query is asked
// again for one entry from the last id shown.
func morePast(ctx context.Context, c *client.Client, p client.JournalQueryParams, id int64) (bool, error) {
	p.Cursor = proto.JournalCursor(id)
	p.Limit = 1
	next, _, err := c.JournalQuery(ctx, p)
	return len(next) > 0, err
}

// firstElements is the JSON array raw cut to its first n elements.
func firstElements(raw []byte, n int) ([]byte, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("journal.query's answer: %w", err)
	}
	return json.Marshal(elems[:min(n, len(elems))])
}

// historyFail reports a failed call; a kernel error keeps its code.
func historyFail(stderr io.Writer, err error) int {
	var re *proto.RPCError
	if errors.As(err, &re) {
		fmt.Fprintf(stderr, "shoal history: kernel error %d: %s\n", re.Code, re.Message)
		return 1
	}
	fmt.Fprintf(stderr, "shoal history: %v\n", err)
	return 1
}

// historyTime reads RFC 3339 or whole Unix nanoseconds.
func historyTime(s string) (int64, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UnixNano(), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	return 0, fmt.Errorf("%q is neither an RFC 3339 time nor Unix nanoseconds", s)
}

// writeHistoryTable prints entries as aligned columns: ID, TS (UTC),
// PRINCIPAL, SESSION, OK, STATUS, EFFECTS (kinds, once each), SRC (the
// first line, cut to historySrcWidth).
func writeHistoryTable(w io.Writer, entries []client.JournalEntry) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTS\tPRINCIPAL\tSESSION\tOK\tSTATUS\tEFFECTS\tSRC")
	for i := range entries {
		e := &entries[i]
		status := "-"
		if e.Status != nil {
			status = strconv.Itoa(*e.Status)
		}
		ok := strconv.FormatBool(e.OK)
		if e.DurNS == nil {
			ok = "unfinished"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID,
			time.Unix(0, e.TS).UTC().Format("2006-01-02T15:04:05Z"),
			tabSafe(e.Principal), tabSafe(e.Session), ok, status, effectSummary(e), srcLine(e.Src))
	}
	_ = tw.Flush()
}

// effectSummary lists each effect kind once, in first-seen order, with
// "opaque" when the plan could not be bounded.
func effectSummary(e *client.JournalEntry) string {
	seen := map[string]bool{}
	var kinds []string
	for _, k := range e.EffectKinds() {
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
	}
	if e.Opaque {
		kinds = append(kinds, "opaque")
	}
	if len(kinds) == 0 {
		return "-"
	}
	return tabSafe(strings.Join(kinds, ","))
}

// srcLine is the first line of src, cut to historySrcWidth runes, with
// "…" when anything was left out.
func srcLine(src string) string {
	line, rest, _ := strings.Cut(strings.TrimRight(src, "\n"), "\n")
	more := rest != ""
	r := []rune(line)
	if len(r) > historySrcWidth {
		r, more = r[:historySrcWidth], true
	}
	out := tabSafe(string(r))
	if more {
		out += "…"
	}
	return out
}

// tabSafe keeps a field from breaking the table: tabs and control
// characters become spaces.
func tabSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}
