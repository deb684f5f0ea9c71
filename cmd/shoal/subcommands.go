package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// subcommand is one of shoal's subcommands.
type subcommand struct {
	Name    string
	Args    string // the synopsis after the name
	Summary string // one line for shoal --help
	Run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// subcommands is the one table of shoal's subcommands: dispatch, the
// usage text and the completion scripts all read it. A first argument
// that names one runs it (a script of the same name runs as ./NAME).
func subcommands() []subcommand {
	return []subcommand{
		{"fmt", "[--check | -l | -d | -w] [FILE...]", "lay Shoal source out canonically, keeping every comment", fmtCommand},
		{"completions", "bash|zsh|fish", "print a completion script for shoal", completionsCommand},
		{"prompt", "print|explain|bench", "render, explain or time the REPL's prompt", promptCommand},
		{"lsp", "[--kernel SOCKET]", "the language server, on stdin/stdout (see shoal lsp -h)",
			func(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
				return runLSP(args, stdin, stdout, stderr)
			}},
		{"history", "[flags]", "a running kernel's journal (see shoal history -h)",
			func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return history(ctx, args, stdout, stderr)
			}},
		{"doctor", "[--json]", "state dir, socket, tokens, policy, sandbox, cgroups",
			func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return doctor(ctx, args, stdout, stderr)
			}},
		{"trust", "[DIR | --list | --revoke [DIR]]", "which project directories may steer shoal (see shoal trust -h)",
			func(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
				return trustCommand(args, stdout, stderr)
			}},
		{"kernel", "[flags]", "shoal-kernel, found beside this shoal", companionRunner("kernel")},
		{"token", "COMMAND", "shoal-token, found beside this shoal", companionRunner("token")},
		{"mcp", "[flags]", "shoal-mcp, the MCP facade, found beside this shoal", companionRunner("mcp")},
	}
}

// companionRunner runs the companion binary of a subcommand; shoal mcp on
// this process's own streams becomes shoal-mcp (exec), so an MCP client
// talks to it directly.
func companionRunner(name string) func(context.Context, []string, io.Reader, io.Writer, io.Writer) int {
	return func(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
		if name == "mcp" && ownStreams(stdin, stdout, stderr) {
			return execCompanion(companions[name], args, stderr)
		}
		return companion(companions[name], args, stdin, stdout, stderr)
	}
}

// findSubcommand returns the subcommand named name.
func findSubcommand(name string) (subcommand, bool) {
	for _, s := range subcommands() {
		if s.Name == name {
			return s, true
		}
	}
	return subcommand{}, false
}

// subcommandNames lists the subcommands' names in table order.
func subcommandNames() []string {
	var names []string
	for _, s := range subcommands() {
		names = append(names, s.Name)
	}
	return names
}

// isBareWord reports whether arg looks like a subcommand rather than a
// script path: letters, digits and '-' only (no '.', no '/'), starting
// with a letter.
func isBareWord(arg string) bool {
	if arg == "" || !isLetter(arg[0]) {
		return false
	}
	for i := 0; i < len(arg); i++ {
		if c := arg[i]; !isLetter(c) && !(c >= '0' && c <= '9') && c != '-' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// unknownSubcommand is the error for a bare word that names neither a
// subcommand nor an existing file.
func unknownSubcommand(word string) error {
	return fmt.Errorf("unknown subcommand %q (subcommands: %s; to run a script, name an existing file, such as ./%s)",
		word, strings.Join(subcommandNames(), ", "), word)
}

// scriptMissing reports whether the script argument path is an unknown
// subcommand: a bare word and no such file.
func scriptMissing(path string) bool {
	if !isBareWord(path) {
		return false
	}
	_, err := os.Lstat(path)
	return os.IsNotExist(err)
}

// usageText is shoal --help: the ways to run source, then the table's
// subcommands.
func usageText() string {
	var b strings.Builder
	b.WriteString(usageHead)
	width := 0
	for _, s := range subcommands() {
		width = max(width, len(s.Name)+1+len(s.Args))
	}
	for _, s := range subcommands() {
		fmt.Fprintf(&b, "       shoal %-*s  %s\n", width, s.Name+" "+s.Args, s.Summary)
	}
	b.WriteString(usageTail)
	return b.String()
}
