package adapters

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

// Template is one declared planning effect, "fs.read(cwd)",
// "net.connect($remote)": an effect kind and its target, which is a
// literal or one bound parameter ($name), optionally followed by a path
// suffix ("$dir/target") and a fallback for when the call does not bind
// it ("$paths|cwd"; "$remote|*" makes it a target known only at run
// time). A trailing "if NAME" keeps the effect only when the bool
// parameter NAME is given ("fs.write($file) if create").
type Template struct {
	Kind     string // the gate's effect name: fs_read, fs_write, fs_delete, net_connect, proc_spawn, env_read, env_write
	Target   string // the literal target, or the suffix after $Param
	Param    string // the parameter whose bound value is the target; "" for a literal
	Fallback string // the target when Param is not bound; "" drops the effect, "*" is dynamic
	If       string // a bool parameter the effect depends on; "" when unconditional
	Text     string // as written
}

// effectKind maps the catalog's dotted effect names to the gate's (a
// switch, not a map literal, which a package initialiser would build at
// every start).
func effectKind(name string) (string, bool) {
	switch name {
	case "fs.read", "fs.write", "fs.delete", "net.connect", "proc.spawn", "env.read", "env.write":
		return strings.Replace(name, ".", "_", 1), true
	}
	return "", false
}

// ParseTemplate parses one effect declaration.
func ParseTemplate(text string) (Template, error) {
	body, cond := text, ""
	if i := strings.LastIndex(text, ") if "); i >= 0 {
		body, cond = text[:i+1], strings.TrimSpace(text[i+len(") if "):])
		if cond == "" {
			return Template{}, fmt.Errorf("effect %q: `if` names no parameter", text)
		}
	}
	open := strings.IndexByte(body, '(')
	if open < 0 || !strings.HasSuffix(body, ")") {
		return Template{}, fmt.Errorf("effect %q: expected kind(target), e.g. fs.read(cwd)", text)
	}
	kind, ok := effectKind(strings.TrimSpace(body[:open]))
	if !ok {
		return Template{}, fmt.Errorf("effect %q: unknown kind %q (fs.read, fs.write, fs.delete, net.connect, proc.spawn, env.read, env.write)", text, body[:open])
	}
	arg := strings.TrimSpace(body[open+1 : len(body)-1])
	if arg == "" {
		return Template{}, fmt.Errorf("effect %q: no target", text)
	}
	t := Template{Kind: kind, Text: text, Target: arg, If: cond}
	if strings.HasPrefix(arg, "$") {
		name := arg[1:]
		if i := strings.IndexByte(name, '|'); i >= 0 {
			name, t.Fallback = name[:i], strings.TrimSpace(name[i+1:])
			if t.Fallback == "" {
				return Template{}, fmt.Errorf("effect %q: | gives no fallback", text)
			}
		}
		rest := ""
		if i := strings.IndexByte(name, '/'); i >= 0 {
			name, rest = name[:i], name[i:]
		}
		if name == "" {
			return Template{}, fmt.Errorf("effect %q: $ names no parameter", text)
		}
		t.Param, t.Target = name, rest
	}
	return t, nil
}

// Effect is a template with its target resolved for one call. For file
// effects Target is a path as written (relative paths are relative to the
// working directory; "cwd" is the directory itself); for net_connect it
// is host:port; for env effects a variable name; for proc_spawn a program
// or a description. Dynamic marks a target known only at run time.
type Effect struct {
	Kind    string
	Target  string
	Dynamic bool
}

// Effects substitutes the call's bound arguments into its
// specification's templates. A template naming a parameter the call did
// not bind is dropped (curl without --output writes no file); one whose
// argument is not known before running is dynamic. A call that passes
// through (Pass) is the same program doing possibly more than its
// declaration binds: every effect is kept, conditional or not, and one
// naming a parameter the call did not bind is its fallback or, without
// one, a target known only at run time.
func (b *Bound) Effects() []Effect {
	var out []Effect
	for _, t := range b.Spec.Effects {
		if b.Pass != "" {
			if _, ok := b.Args[t.Param]; t.Param != "" && !ok && t.Fallback == "" {
				out = append(out, Effect{Kind: t.Kind, Target: "$" + t.Param + t.Target, Dynamic: true})
				continue
			}
		} else if t.If != "" {
			if arg, ok := b.Args[t.If]; !ok || arg.Value != value.Bool(true) {
				continue
			}
		}
		if t.Param == "" {
			// A literal "*" is a target only the program knows (the
			// cluster a kubeconfig names).
			out = append(out, Effect{Kind: t.Kind, Target: literalTarget(t.Kind, t.Target), Dynamic: t.Target == "*"})
			continue
		}
		arg, ok := b.Args[t.Param]
		if l, isList := arg.Value.(*value.List); ok && isList && len(l.Items) == 0 && !arg.Unknown {
			ok = false
		}
		if !ok {
			switch t.Fallback {
			case "":
			case "*":
				out = append(out, Effect{Kind: t.Kind, Target: "$" + t.Param, Dynamic: true})
			default:
				out = append(out, Effect{Kind: t.Kind, Target: literalTarget(t.Kind, t.Fallback)})
			}
			continue
		}
		if arg.Unknown {
			out = append(out, Effect{Kind: t.Kind, Target: "$" + t.Param + t.Target, Dynamic: true})
			continue
		}
		vals := []value.Value{arg.Value}
		if l, ok := arg.Value.(*value.List); ok {
			vals = l.Items
		}
		for _, v := range vals {
			s := textOf(v)
			if t.Kind == "net_connect" {
				hp, known := hostPort(s)
				out = append(out, Effect{Kind: t.Kind, Target: hp, Dynamic: !known})
				continue
			}
			out = append(out, Effect{Kind: t.Kind, Target: s + t.Target})
		}
	}
	return out
}

// literalTarget resolves the `cwd` spelling of a literal file target.
func literalTarget(kind, target string) string {
	if kind != "fs_read" && kind != "fs_write" && kind != "fs_delete" {
		return target
	}
	switch {
	case target == "cwd":
		return "."
	case strings.HasPrefix(target, "cwd/"):
		return "./" + target[len("cwd/"):]
	}
	return target
}

// hostPort reduces a URL or host to host:port for a net_connect effect
// (https and unknown schemes: 443; http: 80; ssh and git@host: 22). A
// name that is none of those (a git remote such as origin) stays as
// written and is not known (a remote's URL is configuration).
func hostPort(s string) (string, bool) {
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err == nil && u.Hostname() != "" {
			port := u.Port()
			if port == "" {
				switch u.Scheme {
				case "http":
					port = "80"
				case "ssh", "git+ssh":
					port = "22"
				default:
					port = "443"
				}
			}
			return u.Hostname() + ":" + port, true
		}
		return s, false
	}
	if at := strings.IndexByte(s, '@'); at >= 0 {
		if colon := strings.IndexByte(s[at:], ':'); colon > 1 {
			return s[at+1:at+colon] + ":22", true
		}
	}
	if h, p, ok := strings.Cut(s, ":"); ok && h != "" && p != "" && strings.Trim(p, "0123456789") == "" {
		return s, true
	}
	return s, false
}
