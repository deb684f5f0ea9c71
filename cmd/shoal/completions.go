package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// shoal completions bash|zsh|fish: a completion script for the shoal
// command itself, written from the subcommand table and shoal's own flag
// set, so a subcommand or flag added there is completed without more.

const completionsUsage = "usage: shoal completions bash|zsh|fish\n"

// completionWriter returns the function that writes shell's script, or
// nil for a shell without one.
func completionWriter(shell string) func(io.Writer) {
	switch shell {
	case "bash":
		return writeBashCompletion
	case "zsh":
		return writeZshCompletion
	case "fish":
		return writeFishCompletion
	}
	return nil
}

func completionsCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, completionsUsage)
		return 0
	}
	var write func(io.Writer)
	if len(args) == 1 {
		write = completionWriter(args[0])
	}
	if write == nil {
		fmt.Fprint(stderr, "shoal completions: name one shell\n"+completionsUsage)
		return 2
	}
	write(stdout)
	return 0
}

// shoalFlagWords lists shoal's own flags as typed: -c, --kernel, ...
func shoalFlagWords() []string {
	fs, _ := newShoalFlags()
	var words []string
	fs.VisitAll(func(f *flag.Flag) { words = append(words, flagWord(f.Name)) })
	return append(words, "--help")
}

// flagWord is how a flag name is typed: one dash for one letter.
func flagWord(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// subcommandWords are the words a subcommand's synopsis offers after its
// name: its flags (`[--check | -l]`) and its choices (`bash|zsh|fish`).
func subcommandWords(s subcommand) []string {
	var words []string
	for _, f := range strings.Fields(s.Args) {
		f = strings.Trim(f, "[]")
		switch {
		case strings.HasPrefix(f, "-"):
			words = append(words, f)
		case strings.Contains(f, "|") && f == strings.ToLower(f):
			for _, w := range strings.Split(f, "|") {
				if w != "" {
					words = append(words, w)
				}
			}
		}
	}
	return words
}

// takesFiles reports whether a subcommand's synopsis names files.
func takesFiles(s subcommand) bool {
	return strings.Contains(s.Args, "FILE") || strings.Contains(s.Args, "DIR")
}

// shellQuote quotes s for a POSIX shell, zsh and fish alike.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func writeBashCompletion(w io.Writer) {
	fmt.Fprintf(w, `# bash completion for shoal: eval "$(shoal completions bash)"
_shoal() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    if [[ $COMP_CWORD -eq 1 ]]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W %s -- "$cur"))
        else
            COMPREPLY=($(compgen -W %s -- "$cur") $(compgen -f -- "$cur"))
        fi
        return 0
    fi
    case ${COMP_WORDS[1]} in
`, shellQuote(strings.Join(shoalFlagWords(), " ")), shellQuote(strings.Join(subcommandNames(), " ")))
	for _, s := range subcommands() {
		words := subcommandWords(s)
		if len(words) == 0 && !takesFiles(s) {
			continue
		}
		files := ""
		if takesFiles(s) {
			files = ` $(compgen -f -- "$cur")`
		}
		fmt.Fprintf(w, "        %s) COMPREPLY=($(compgen -W %s -- \"$cur\")%s) ;;\n", s.Name, shellQuote(strings.Join(words, " ")), files)
	}
	fmt.Fprint(w, `        *) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
    return 0
}
complete -o filenames -F _shoal shoal
`)
}

func writeZshCompletion(w io.Writer) {
	fmt.Fprint(w, `#compdef shoal
# zsh completion for shoal: eval "$(shoal completions zsh)" after compinit,
# or save as _shoal in a directory of $fpath.
_shoal() {
    local -a subcommands flags
    subcommands=(
`)
	for _, s := range subcommands() {
		fmt.Fprintf(w, "        %s\n", shellQuote(s.Name+":"+s.Summary))
	}
	fmt.Fprintf(w, "    )\n    flags=(%s)\n", strings.Join(quoteAll(shoalFlagWords()), " "))
	fmt.Fprint(w, `    if (( CURRENT == 2 )); then
        if [[ $words[CURRENT] == -* ]]; then
            compadd -- $flags
        else
            _describe 'shoal subcommand' subcommands
            _files
        fi
        return
    fi
    case $words[2] in
`)
	for _, s := range subcommands() {
		words := subcommandWords(s)
		if len(words) == 0 && !takesFiles(s) {
			continue
		}
		fmt.Fprintf(w, "        %s)\n", s.Name)
		if len(words) > 0 {
			fmt.Fprintf(w, "            compadd -- %s\n", strings.Join(quoteAll(words), " "))
		}
		if takesFiles(s) {
			fmt.Fprint(w, "            _files\n")
		}
		fmt.Fprint(w, "            ;;\n")
	}
	fmt.Fprint(w, `        *) _files ;;
    esac
}
if (( $+functions[compdef] )); then
    compdef _shoal shoal
fi
`)
}

// quoteAll shell-quotes each word.
func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return out
}

func writeFishCompletion(w io.Writer) {
	fmt.Fprint(w, "# fish completion for shoal: shoal completions fish | source\ncomplete -c shoal -e\n")
	fmt.Fprint(w, "complete -c shoal -n __fish_use_subcommand -F\n")
	fs, _ := newShoalFlags()
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		opt := "-l " + f.Name
		if len(f.Name) == 1 {
			opt = "-s " + f.Name
		}
		req := ""
		if name != "" {
			req = " -r"
		}
		fmt.Fprintf(w, "complete -c shoal -n __fish_use_subcommand %s%s -d %s\n", opt, req, shellQuote(usage))
	})
	for _, s := range subcommands() {
		fmt.Fprintf(w, "complete -c shoal -n __fish_use_subcommand -f -a %s -d %s\n", s.Name, shellQuote(s.Summary))
	}
	for _, s := range subcommands() {
		cond := shellQuote("__fish_seen_subcommand_from " + s.Name)
		files := " -f"
		if takesFiles(s) {
			files = " -F"
		}
		for _, word := range subcommandWords(s) {
			switch {
			case strings.HasPrefix(word, "--"):
				fmt.Fprintf(w, "complete -c shoal -n %s -l %s\n", cond, word[2:])
			case strings.HasPrefix(word, "-"):
				fmt.Fprintf(w, "complete -c shoal -n %s -s %s\n", cond, word[1:])
			default:
				fmt.Fprintf(w, "complete -c shoal -n %s%s -a %s\n", cond, files, word)
			}
		}
	}
}
