package main

// `shoal trust`: the person's decision about which project directories
// may steer their shell (internal/trust), and the CLI's use of it: the
// store the sessions consult, the one-line notice an untrusted directory
// gets, and the project .shoal.toml layer applied only from a trusted
// directory.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/reef"
	"github.com/shoalgo/shoal/internal/trust"
)

const trustUsage = `usage: shoal trust [DIR]            trust DIR (default: the current directory)
       shoal trust --list           every trusted directory, and whether it still matches
       shoal trust --revoke [DIR]   forget DIR (default: the current directory)

A directory's project files (.reef.toml, mise.toml, .mise.toml,
.tool-versions, reef.lock, .shoal.toml) decide which programs Shoal runs
there and the configuration it sees. Shoal uses them only from a
directory you trusted, and only while they are byte for byte what you
trusted: any change (a git pull, an editor, an agent) makes the directory
untrusted again until you run shoal trust there once more. Shoal's own
reef lock and reef add keep a directory you trusted trusted.

The record is $XDG_STATE_HOME/shoal/trust.json (default
~/.local/state/shoal/trust.json).
`

// trustCommand is `shoal trust`.
func trustCommand(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shoal trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // -h prints it on stdout, a bad flag on stderr (below)
	list := fs.Bool("list", false, "list the trusted directories")
	revoke := fs.Bool("revoke", false, "forget a directory")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, trustUsage)
			return 0
		}
		fmt.Fprint(stderr, trustUsage)
		return 2
	}
	if fs.NArg() > 1 || (*list && (*revoke || fs.NArg() > 0)) {
		fmt.Fprint(stderr, trustUsage)
		return 2
	}
	store := trust.Open(trust.Path(os.Getenv))
	if store.FilePath() == "" {
		fmt.Fprintln(stderr, "shoal trust: neither XDG_STATE_HOME nor HOME is an absolute path, so there is no trust store")
		return 1
	}
	if *list {
		return trustList(store, stdout, stderr)
	}
	dir, err := trustDirArg(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "shoal trust: %v\n", err)
		return 2
	}
	if *revoke {
		found, err := store.Revoke(dir)
		if err != nil {
			fmt.Fprintf(stderr, "shoal trust: %v\n", err)
			return 1
		}
		if found {
			fmt.Fprintf(stdout, "revoked %s\n", dir)
		} else {
			fmt.Fprintf(stdout, "%s was not trusted\n", dir)
		}
		return 0
	}
	p := trust.ReadDir(dir)
	if p.Empty() {
		fmt.Fprintf(stderr, "shoal trust: %s has no project files (%s); nothing to trust\n", dir, strings.Join(reef.ProjectFiles, ", "))
		return 1
	}
	fmt.Fprintf(stdout, "trusting %s:\n", dir)
	for _, f := range p.Files {
		fmt.Fprintf(stdout, "  %-15s %s%s\n", f.Name, short8(f.Sum), trustSummary(p, f.Name))
	}
	if err := store.Trust(p, time.Now()); err != nil {
		fmt.Fprintf(stderr, "shoal trust: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "trusted %s\n", dir)
	return 0
}

// trustDirArg is the directory named (default the working directory),
// absolute and clean, which must exist.
func trustDirArg(arg string) (string, error) {
	if arg == "" {
		arg = "."
	}
	dir, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	if arg == "." {
		// The shell's own name for it, as sessions started here see it.
		if wd, err := os.Getwd(); err == nil {
			dir = wd
		}
	}
	if err := trust.CheckDir(dir); err != nil {
		return "", err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return dir, nil
}

// trustList is `shoal trust --list`: each entry and whether the
// directory's files still match.
func trustList(store *trust.Store, stdout, stderr io.Writer) int {
	es, err := store.List()
	if err != nil {
		fmt.Fprintf(stderr, "shoal trust: %v\n", err)
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tDIRECTORY\tTRUSTED AT\tFILES")
	for _, e := range es {
		state := "trusted"
		if fi, err := os.Stat(e.Dir); err != nil || !fi.IsDir() {
			state = "missing"
		} else if trust.ReadDir(e.Dir).Digest != e.Digest {
			state = "changed"
		}
		names := make([]string, len(e.Files))
		for i, f := range e.Files {
			names[i] = f.Name
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", state, e.Dir, e.TrustedAt, strings.Join(names, ", "))
	}
	_ = tw.Flush()
	return 0
}

// maxSummaryTools bounds the tools or lock entries one summary line names.
const maxSummaryTools = 8

// trustSummary is what a project file would make Shoal do, in a few
// words: the tools a manifest constrains, the programs a lock names (and
// whether Reef would refuse an entry's path).
func trustSummary(p *reef.Project, name string) string {
	data, ok := p.Data(name)
	if !ok {
		return "  (unreadable or too large: it will not be used)"
	}
	var m *reef.Manifest
	var err error
	switch name {
	case ".reef.toml":
		m, err = reef.ParseNative(name, data)
	case "mise.toml", ".mise.toml":
		m, err = reef.ParseMise(name, data)
	case ".tool-versions":
		m, err = reef.ParseToolVersions(name, data)
	case reef.LockName:
		return lockSummary(p, data)
	default:
		return ""
	}
	if err != nil {
		return "  (does not parse: it will be skipped)"
	}
	var parts []string
	for i, t := range m.Tools {
		if i == maxSummaryTools {
			parts = append(parts, fmt.Sprintf("and %d more", len(m.Tools)-i))
			break
		}
		parts = append(parts, printableText(t.Name)+" "+printableText(t.Constraint))
	}
	if len(parts) == 0 {
		return "  (no tools)"
	}
	return "  tools: " + strings.Join(parts, ", ")
}

// lockSummary names what a lock binds, flagging entries Reef would refuse.
func lockSummary(p *reef.Project, data []byte) string {
	l, err := reef.ParseLock(filepath.Join(p.Dir, reef.LockName), data)
	if err != nil {
		return "  (does not parse: Reef will refuse it)"
	}
	env := reef.Env{Dir: p.Dir, Path: filepath.SplitList(os.Getenv("PATH")), Home: os.Getenv("HOME"),
		MiseDataDir: os.Getenv("MISE_DATA_DIR"), CargoHome: os.Getenv("CARGO_HOME")}
	var parts []string
	for i, n := range l.Names() {
		if i == maxSummaryTools {
			parts = append(parts, fmt.Sprintf("and %d more", len(l.Entries)-i))
			break
		}
		e := l.Entries[n]
		part := fmt.Sprintf("%s -> %s (%s)", printableText(n), printableText(e.Path), printableText(e.Provider))
		if reef.CheckEntry(env, l.Dir, n, e) != nil {
			part += " REFUSED: not where its provider looks"
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "  (no entries)"
	}
	return "  " + strings.Join(parts, ", ")
}

// printableText is s as it may be printed to a person's terminal: quoted when it
// holds control characters or invalid UTF-8, so a hostile file cannot
// move the cursor or hide a word of what shoal trust shows.
func printableText(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) {
		return strconv.Quote(s)
	}
	return s
}

func short8(s string) string {
	if len(s) > 8 && !strings.Contains(s, ":") {
		return s[:8]
	}
	return s
}

// cliTrust is the store as the shoal command's sessions use it: the
// person's own shell, so it may carry trust over its own writes
// (reef.TrustRecorder), and it prints each notice once per process.
type cliTrust struct {
	*trust.Store
	stderr io.Writer

	mu        sync.Mutex
	said      map[string]bool
	storeSaid bool
}

// maxCLINotices bounds the directories one process names.
const maxCLINotices = 256

func newCLITrust(stderr io.Writer) *cliTrust {
	return &cliTrust{Store: trust.Open(trust.Path(os.Getenv)), stderr: stderr}
}

// notice says once that u's files are ignored (and, once, why no
// directory is trusted when the store cannot be read).
func (c *cliTrust) notice(u reef.UntrustedDir) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.storeSaid {
		c.storeSaid = true
		if err := c.Err(); err != nil {
			fmt.Fprintf(c.stderr, "shoal: %v; no directory is trusted\n", err)
		}
	}
	if c.said[u.Dir] || len(c.said) >= maxCLINotices {
		return
	}
	if c.said == nil {
		c.said = map[string]bool{}
	}
	c.said[u.Dir] = true
	fmt.Fprintln(c.stderr, u.Notice())
}

// readConfig is readConfigFile for the layered configuration, except
// that a project .shoal.toml is read with its directory's other project
// files and used only when the person trusted them as they are (the
// bytes checked are the bytes used); an untrusted one is absent, after a
// notice.
func (c *cliTrust) readConfig(project map[string]bool) func(string, int64) ([]byte, error) {
	return func(name string, max int64) ([]byte, error) {
		if !project[name] {
			return readConfigFile(name, max)
		}
		// Most directories up the walk have no .shoal.toml: one lstat
		// says so without reading and digesting their project files.
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return nil, fs.ErrNotExist
		}
		p := trust.ReadDir(filepath.Dir(name))
		present := false
		for _, f := range p.Files {
			present = present || f.Name == ".shoal.toml"
		}
		if !present {
			return nil, fs.ErrNotExist
		}
		if state := c.Check(p.Dir, p.Digest); state != reef.Trusted {
			c.notice(reef.UntrustedDir{Dir: p.Dir, State: state, Names: []string{".shoal.toml"}})
			return nil, fs.ErrNotExist
		}
		data, ok := p.Data(".shoal.toml")
		if !ok {
			return nil, fmt.Errorf("unreadable or larger than %d bytes", reef.MaxManifestBytes)
		}
		return data, nil
	}
}
