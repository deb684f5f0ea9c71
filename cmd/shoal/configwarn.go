package main

// Configuration never locks a person out: the interactive REPL starts
// whatever its files hold. A file it cannot use is left out whole and
// reported once, as one warning naming file:line:col and what is wrong;
// the REPL's settings and the config namespace's snapshot are then what
// the other layers and the defaults make. Scripts and -c keep their
// documented status 2 for a configuration they cannot use, with the same
// file:line:col message.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/shoalgo/shoal/internal/namespaces"
	"github.com/shoalgo/shoal/internal/prompt"
	"github.com/shoalgo/shoal/internal/userconfig"
	"github.com/shoalgo/shoal/internal/value"
)

// maxConfigRetries bounds how many layers the REPL's snapshot leaves out
// (system, user, project, environment) before it falls back to the
// defaults alone.
const maxConfigRetries = 4

// configProblem is the one-line description of a configuration layer
// that cannot be used: file:line:col: key: what is wrong, the position
// found with userconfig.Locate when the loader did not give one.
func configProblem(err error) string {
	var fe *namespaces.ConfigFileError
	if errors.As(err, &fe) && fe.Data != nil {
		if e := userconfig.Locate(fe.Path, fe.Data); e != nil && e.Line > 0 {
			return e.Error()
		}
	}
	return err.Error()
}

// unknownPromptModules lists the `$name`s of the prompt's formats that
// are not modules, each once with the format it is in.
func unknownPromptModules(p *userconfig.Prompt) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range []struct{ key, format string }{
		{"format.left", p.Format.Left}, {"format.right", p.Format.Right},
		{"format.transient", p.Format.Transient}, {"format.continuation", p.Format.Continuation},
	} {
		for _, name := range prompt.Unknown(f.format) {
			if !seen[f.key+name] {
				seen[f.key+name] = true
				out = append(out, fmt.Sprintf("prompt %s: unknown module `$%s`", f.key, name))
			}
		}
	}
	return out
}

// replWarnConfig prints one warning for a layer the REPL leaves out.
func replWarnConfig(stderr io.Writer, problem string) {
	fmt.Fprintf(stderr, "shoal: warning: %s (left out: the REPL starts without it)\n", problem)
}

// replLanguageConfig is languageConfig for the interactive REPL: a layer
// that cannot be used is left out, with one warning unless reported is
// true of its file (loadUserConfig warned about it already); a bad
// SHOAL_* override leaves out the overrides. It always returns a
// snapshot.
func replLanguageConfig(dir string, tr *cliTrust, reported map[string]bool, stderr io.Writer) *value.Record {
	snap, problems := lenientLanguageConfig(dir, tr)
	for _, p := range problems {
		if !reported[p.file] {
			replWarnConfig(stderr, p.text)
		}
	}
	return snap
}

// layerProblem is a configuration layer left out: its file ("" for the
// environment's overrides) and the one-line description.
type layerProblem struct{ file, text string }

// lenientLanguageConfig is the config namespace's snapshot with every
// layer that cannot be used left out, and what was left out.
func lenientLanguageConfig(dir string, tr *cliTrust) (*value.Record, []layerProblem) {
	base, err := defaultsSnapshot(configDefaults)
	if err != nil {
		base = value.NewRecord(nil, nil)
	}
	skip := map[string]bool{}
	getenv := os.LookupEnv
	src := namespaces.ConfigSource{Getenv: func(k string) (string, bool) { return getenv(k) }, Cwd: dir, Base: base}
	_, _, candidates := namespaces.ConfigPaths(src)
	project := make(map[string]bool, len(candidates))
	for _, p := range candidates {
		project[p] = true
	}
	type read struct {
		data []byte
		err  error
	}
	reads := map[string]read{} // each file read once, however often the load is retried
	readTrusted := tr.readConfig(project)
	src.ReadFile = func(name string, limit int64) ([]byte, error) {
		if skip[name] {
			return nil, os.ErrNotExist
		}
		r, ok := reads[name]
		if !ok {
			r.data, r.err = readTrusted(name, limit)
			reads[name] = r
		}
		return r.data, r.err
	}
	var problems []layerProblem
	for range maxConfigRetries {
		snap, _, err := namespaces.LoadConfig(src)
		if err == nil {
			return snap, problems
		}
		var fe *namespaces.ConfigFileError
		switch {
		case errors.As(err, &fe) && !skip[fe.Path]:
			skip[fe.Path] = true
			problems = append(problems, layerProblem{fe.Path, configProblem(err)})
		default: // a malformed SHOAL_* override: leave the overrides out
			problems = append(problems, layerProblem{"", err.Error()})
			getenv = func(k string) (string, bool) {
				if strings.HasPrefix(k, "SHOAL_") {
					return "", false
				}
				return os.LookupEnv(k)
			}
		}
	}
	return base, problems
}
