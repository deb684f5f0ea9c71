package main

// Programs that take over a terminal, under --kernel. A kernel session's
// programs run without a terminal (their output is captured and handed
// over when the exec ends), so a full-screen editor, pager or monitor
// there would wait for keys that never come, and the person would see
// nothing until Ctrl-C. The client refuses them before anything is sent,
// with a message saying where they do run.

import (
	"path"
	"strings"

	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// terminalPrograms are programs that need a terminal to be of any use:
// editors, pagers, monitors, multiplexers and full-screen browsers.
var terminalPrograms = map[string]bool{
	"vi": true, "vim": true, "nvim": true, "view": true, "vimdiff": true, "ex": true,
	"nano": true, "pico": true, "emacs": true, "micro": true, "hx": true, "kak": true, "joe": true, "mcedit": true,
	"less": true, "more": true, "most": true, "man": true,
	"top": true, "htop": true, "btop": true, "atop": true, "watch": true,
	"tmux": true, "screen": true,
	"mc": true, "ranger": true, "nnn": true, "lf": true, "fzf": true, "tig": true, "lazygit": true,
}

// needsTerminal returns a no_terminal error when src runs a program that
// takes over a terminal (or asks for one with `interact`), else nil.
// A source that does not parse is left to the kernel to report.
func needsTerminal(src string) error {
	prog, err := syntax.Parse(src, syntax.ParseOptions{REPL: true})
	if err != nil {
		return nil
	}
	var found *syntax.CmdCall
	var name string
	syntax.Walk(prog, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CmdCall)
		if !ok || found != nil || c.Head == nil {
			return found == nil
		}
		if c.Head.Kind != syntax.ArgWord && c.Head.Kind != syntax.ArgPath {
			return true
		}
		head := path.Base(c.Head.Text)
		switch {
		case head == "interact":
			found, name = c, "interact"
		case terminalPrograms[head]:
			found, name = c, head
		case head == "git" && gitOpensEditor(c.Args):
			found, name = c, "git "+c.Args[0].Text
		}
		return found == nil
	})
	if found == nil {
		return nil
	}
	e := &value.Error{Code: value.CodeNoTerminal,
		Msg:  name + " needs a terminal, and a kernel session has none to give it",
		Hint: "run it in a standalone shoal (without --kernel) or in another terminal",
		Span: found.Span, HasPos: true}
	return e
}

// gitOpensEditor reports whether git with args would open an editor for
// the person: `commit` without a message (-m, -F, -C, --no-edit, …) and
// `rebase -i`.
func gitOpensEditor(args []*syntax.CmdArg) bool {
	if len(args) == 0 || args[0].Kind != syntax.ArgWord {
		return false
	}
	sub, rest := args[0].Text, args[1:]
	has := func(long string, shorts string) bool {
		for _, a := range rest {
			switch a.Kind {
			case syntax.ArgLongFlag:
				if strings.Contains(long, " "+a.Name+" ") {
					return true
				}
			case syntax.ArgShortFlag:
				if strings.ContainsAny(a.Text, shorts) {
					return true
				}
			}
		}
		return false
	}
	switch sub {
	case "commit":
		return !has(" message file reuse-message no-edit fixup dry-run ", "mFC")
	case "rebase":
		return has(" interactive ", "i")
	}
	return false
}
