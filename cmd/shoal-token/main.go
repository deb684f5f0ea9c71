// Command shoal-token creates, lists and revokes the bearer tokens that
// shoal-kernel accepts at session.attach.
//
//	shoal-token create PRINCIPAL [PROFILE] [--cap CAP]... [--ttl SECONDS] [--state-dir DIR]
//	shoal-token list [--json] [--state-dir DIR]
//	shoal-token revoke ID [--state-dir DIR]
//
// create prints the bearer secret, and nothing else, on stdout; it cannot
// be shown again. The store is $SHOAL_TOKEN_STORE when set, else
// DIR/tokens.json. Exit status is 2 for usage errors and 1 for failures.
package main

import (
	"fmt"
	buildversion "github.com/shoalgo/shoal/internal/version"
	"io"
	"os"
	"strings"
	"time"

	"github.com/shoalgo/shoal/internal/policy"
)

// capList names the caps create accepts, for the usage text.
var capList = strings.Join(policy.Caps, ", ")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, time.Now))
}

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

var usage = `usage:
  shoal-token create PRINCIPAL [PROFILE] [--cap CAP]... [--ttl SECONDS] [--state-dir DIR]
  shoal-token list [--json] [--state-dir DIR]
  shoal-token revoke ID [--state-dir DIR]
  shoal-token --version

create prints the bearer secret once on stdout. PROFILE defaults to "default";
--cap may be repeated; --ttl is in seconds (no --ttl: never expires).
A token with caps may use only those dimensions of its principal's policy;
CAP is one of ` + capList + `.
PRINCIPAL is ASCII letters, digits and . _ - : @ / + =, and may not name the
kernel owner: uid:*, root, owner, local, kernel, self and bare numbers are
refused, as is the profile local-human.
The store and its directory must be owned by you and not group- or
world-writable; a symbolic link, FIFO or other non-file store is refused.
The store is $SHOAL_TOKEN_STORE if set, else DIR/tokens.json, where DIR
defaults to $XDG_STATE_HOME/shoal, else ~/.local/state/shoal.
`

// run is the whole command, with its streams and clock passed in.
func run(args []string, stdout, stderr io.Writer, now func() time.Time) int {
	if len(args) == 0 {
		return usageError(stderr, "missing command")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "-h", "--help", "help":
		io.WriteString(stdout, usage)
		return exitOK
	case "--version", "version":
		fmt.Fprintln(stdout, buildversion.Line("shoal-token"))
		return exitOK
	case "create":
		return runCreate(rest, stdout, stderr, now)
	case "list", "ls":
		return runList(rest, stdout, stderr, now)
	case "revoke":
		return runRevoke(rest, stdout, stderr)
	}
	return usageError(stderr, "unknown command "+quote(cmd))
}
