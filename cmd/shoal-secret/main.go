// Command shoal-secret manages the secret store that the language's
// secret.get reads (internal/secretstore):
//
//	shoal-secret set NAME < value     store stdin, every byte, as NAME
//	shoal-secret list                 the stored names, sorted, one a line
//	shoal-secret delete NAME          remove NAME (a missing one is fine)
//
// There is no command that prints a secret's material. The store is found
// exactly as the evaluator finds it ($SHOAL_SECRET_DIR, else
// $XDG_DATA_HOME/shoal/secrets, else ~/.local/share/shoal/secrets), so the
// two never disagree about it.
//
// Exit status: 0 on success, 1 when the operation fails, 2 for bad usage or
// no store.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/shoalgo/shoal/internal/secretstore"
	buildversion "github.com/shoalgo/shoal/internal/version"
)

const usage = `usage: shoal-secret set NAME < value
       shoal-secret list
       shoal-secret delete NAME
       shoal-secret --version

Stores named secrets for secret.get(NAME) in the store at
$SHOAL_SECRET_DIR, else $XDG_DATA_HOME/shoal/secrets, else
~/.local/share/shoal/secrets. set reads stdin to its end and keeps every
byte (write text with printf, not echo, to leave out a newline). Names are
letters, digits, '.', '_' and '-', not starting with '.'.
`

func main() { os.Exit(run(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr)) }

// run is the whole command, parameterised for tests.
func run(args, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "shoal-secret: "+format+"\n", a...)
		return code
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "--version":
		fmt.Fprintln(stdout, buildversion.Line("shoal-secret"))
		return 0
	}
	dir := secretstore.Dir(env)
	if dir == "" {
		return fail(2, "no secret store: set SHOAL_SECRET_DIR, XDG_DATA_HOME or HOME")
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "set":
		if len(rest) != 1 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		if err := secretstore.CheckName(rest[0]); err != nil {
			return fail(2, "%v", err)
		}
		data, err := io.ReadAll(io.LimitReader(stdin, secretstore.MaxBytes+1))
		if err != nil {
			return fail(1, "reading stdin: %v", err)
		}
		if err := secretstore.Set(dir, rest[0], data); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	case "list":
		if len(rest) != 0 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		names, more, err := secretstore.List(dir)
		if err != nil {
			return fail(1, "%v", err)
		}
		for _, n := range names {
			fmt.Fprintln(stdout, n)
		}
		if more > 0 {
			return fail(1, "%d more names not listed (at most %d)", more, secretstore.MaxList)
		}
		return 0
	case "delete":
		if len(rest) != 1 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		if err := secretstore.CheckName(rest[0]); err != nil {
			return fail(2, "%v", err)
		}
		if err := secretstore.Delete(dir, rest[0]); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}
	fmt.Fprintf(stderr, "shoal-secret: unknown command %q\n%s", args[0], usage)
	return 2
}
