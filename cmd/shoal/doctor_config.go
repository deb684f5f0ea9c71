package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shoalgo/shoal/internal/userconfig"
)

// checkConfig reports what the REPL warns about at start, and what makes
// scripts and -c refuse to start: a shoal.toml, prompt.toml, system file,
// trusted project .shoal.toml or SHOAL_* override that cannot be used
// (file:line:col and what is wrong), unknown keys and unknown prompt
// modules. One line per problem, or one ok line naming the files read.
func checkConfig() []check {
	home, _ := os.UserHomeDir()
	l := userconfig.LoadSkipping(userconfig.Env{Getenv: os.Getenv, Home: home})
	var out []check
	reported := map[string]bool{}
	for _, e := range l.Problems {
		reported[e.File] = true
		c := check{Name: "config", Level: levelWarn, Detail: e.Error() + "; the REPL leaves this file out",
			Fix: "correct the file at the place named (docs/shoal.md, \"Prompt and configuration\")"}
		if filepath.Base(e.File) == userconfig.MainFile {
			c.Level = levelFail
			c.Detail += ", and scripts and -c refuse to start (status 2)"
		}
		out = append(out, c)
	}
	for _, w := range l.Warnings {
		out = append(out, check{Name: "config", Level: levelWarn, Detail: w.String(), Fix: "correct or remove the key"})
	}
	for _, w := range unknownPromptModules(&l.Config.Prompt) {
		out = append(out, check{Name: "config", Level: levelWarn, Detail: w,
			Fix: "the modules are listed in docs/shoal.md, \"Prompt and configuration\""})
	}
	if dir, err := os.Getwd(); err == nil {
		_, problems := lenientLanguageConfig(dir, newCLITrust(io.Discard))
		for _, p := range problems {
			if p.file != "" && reported[p.file] {
				continue
			}
			out = append(out, check{Name: "config", Level: levelFail,
				Detail: p.text + "; scripts and -c refuse to start (status 2), the REPL leaves it out",
				Fix:    "correct it at the place named"})
		}
	}
	if len(out) == 0 {
		detail := "no configuration files: the defaults"
		if len(l.Sources) > 0 {
			detail = strings.Join(l.Sources, ", ") + " load"
		}
		out = append(out, check{Name: "config", Level: levelOK, Detail: detail})
	}
	return out
}
