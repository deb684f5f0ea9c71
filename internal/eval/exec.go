package eval

import (
	"bytes"
	"strings"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/syntax"
	"github.com/shoalgo/shoal/internal/value"
)

// redirects are a command's evaluated `>`, `>>` and `<`.
type redirects struct {
	out      string // absolute target of > or >>; "" when none
	appendTo bool
	in       []byte
	hasIn    bool
}

func (t *thread) evalRedirects(rs []*syntax.Redirect, sc *scope) (*redirects, error) {
	r := &redirects{}
	for _, rd := range rs {
		cv, err := t.evalCmdArg(rd.Target, sc)
		if err != nil {
			return nil, withSpan(err, rd.Span)
		}
		target, err := argText(cv.v)
		if err != nil {
			return nil, withSpan(err, rd.Span)
		}
		p := t.abs(target)
		switch rd.Kind {
		case syntax.RedirOut, syntax.RedirAppend:
			r.out, r.appendTo = p, rd.Kind == syntax.RedirAppend
		case syntax.RedirIn:
			data, err := t.host.ReadFile(t.ctx, p)
			if err != nil {
				return nil, withSpan(hostError(err), rd.Span)
			}
			r.in, r.hasIn = data, true
		}
	}
	return r, nil
}

func (t *thread) writeRedirect(r *redirects, data []byte) error {
	if err := t.host.WriteFile(t.ctx, r.out, data, r.appendTo); err != nil {
		return hostError(err)
	}
	return nil
}

// runExternal spawns prog with args through the host. In stream mode its
// output goes to the thread's writers as it is produced (and is still
// captured); with mRaise a failure raises cmd_failed.
func (t *thread) runExternal(name, prog string, args []string, r *redirects, m mode) (value.Value, error) {
	spawn := &host.Spawn{
		Argv: append([]string{prog}, args...),
		Dir:  t.dir,
		Env:  t.env,
	}
	if r != nil && r.hasIn {
		spawn.Stdin = bytes.NewReader(r.in)
	}
	redirected := r != nil && r.out != ""
	if m&mStream != 0 {
		if !redirected {
			spawn.StreamOut = t.stdout
		}
		spawn.StreamErr = t.stderr
	}
	res, err := t.host.Run(t.ctx, spawn)
	if err != nil {
		return nil, hostError(err)
	}
	o := &value.Outcome{
		Cmd:    displayCmd(name, args),
		Argv:   spawn.Argv,
		Status: res.Status,
		Signal: res.Signal,
		Stdout: res.Stdout,
		Stderr: res.Stderr,
		Pid:    res.Pid,
		Dur:    res.Dur,
	}
	if redirected {
		if err := t.writeRedirect(r, res.Stdout); err != nil {
			return nil, err
		}
	}
	if m&mRaise != 0 && !o.Ok() {
		return nil, cmdFailed(o)
	}
	return o, nil
}

// interpreterArgs gives how each known interpreter receives an inline
// program: the flag preceding it, "" for a positional program, or absent
// for the program on stdin.
var interpreterArgs = map[string]string{
	"sh": "-c", "bash": "-c", "zsh": "-c", "fish": "-c", "python": "-c", "python3": "-c",
	"node": "-e", "ruby": "-e", "perl": "-e", "lua": "-e", "Rscript": "-e", "osascript": "-e",
	"php": "-r", "deno": "eval", "jq": "",
}

// runLangBlock runs an interpreter block; stdin, when non-nil, is fed to
// the interpreter.
func (t *thread) runLangBlock(n *syntax.LangBlock, stdin []byte, m mode) (value.Value, error) {
	src := dedent(n.Source)
	prog, err := t.host.LookPath(t.ctx, n.Tool, t.env)
	if err != nil {
		return nil, errorf(codeNotFound, "interpreter not found: %s", n.Tool)
	}
	flag, inline := interpreterArgs[n.Tool]
	var args []string
	r := &redirects{}
	switch {
	case !inline:
		if stdin != nil {
			return nil, errorf(codeFeed, "%s reads its program on stdin, so it cannot also be fed data", n.Tool)
		}
		r.in, r.hasIn = []byte(src), true
	case flag == "":
		args = []string{src}
	default:
		args = []string{flag, src}
	}
	if stdin != nil {
		r.in, r.hasIn = stdin, true
	}
	return t.runExternal(n.Tool, prog, args, r, m)
}

// dedent trims an interpreter block body: a one-line body loses its
// surrounding blanks; a multi-line body loses blank edge lines and the
// common indentation.
func dedent(src string) string {
	if !strings.Contains(src, "\n") {
		return strings.TrimSpace(src)
	}
	lines := strings.Split(src, "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ws, false
			continue
		}
		for !strings.HasPrefix(l, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, prefix)
	}
	return strings.Join(lines, "\n") + "\n"
}
