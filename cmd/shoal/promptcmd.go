package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shoalgo/shoal/internal/prompt"
	"github.com/shoalgo/shoal/internal/userconfig"
)

// shoal prompt print|explain|bench: the REPL's prompt, from the same
// configuration (internal/userconfig, loaded as the REPL loads it) and the
// same facts (promptFacts.state), outside the REPL.

const promptUsage = `usage: shoal prompt print|explain|bench

  print    render the prompt once, as the REPL would here
  explain  each module: its value here, whether a format uses it, and
           where its settings came from (default, a file, the environment)
  bench    time gathering the facts and rendering each module
`

// promptBenchRounds is how many renders bench times per module.
const promptBenchRounds = 1000

func promptCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, "shoal prompt: name one action\n"+promptUsage)
		return 2
	}
	var run func(*promptView, io.Writer)
	switch args[0] {
	case "print":
		run = printPrompt
	case "explain":
		run = explainPrompt
	case "bench":
		run = benchPrompt
	case "-h", "--help":
		fmt.Fprint(stdout, promptUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "shoal prompt: unknown action %q\n%s", args[0], promptUsage)
		return 2
	}
	v, err := loadPromptView(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "shoal prompt: %v\n", err)
		return 1
	}
	run(v, stdout)
	return 0
}

// promptView is the configuration in its layers and the facts of here.
type promptView struct {
	cfg      *userconfig.Config // what the REPL uses
	defaults *userconfig.Config
	files    *userconfig.Config // the files over the defaults, no environment
	sources  []string           // the files read
	facts    promptFacts
	dir      string
	color    bool
}

func loadPromptView(stderr io.Writer) (*promptView, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	cfg, _ := loadUserConfig(stderr) // the REPL's own load, its warnings too
	home, _ := os.UserHomeDir()
	noEnv := func(name string) string {
		if strings.HasPrefix(name, "SHOAL_") || name == "NO_COLOR" {
			return ""
		}
		return os.Getenv(name)
	}
	files := userconfig.LoadSkipping(userconfig.Env{Getenv: noEnv, Home: home})
	color := false
	if f, ok := any(os.Stdout).(*os.File); ok {
		color = isTerminal(f)
	}
	return &promptView{cfg: cfg, defaults: userconfig.Default(), files: files.Config, sources: files.Sources,
		facts: newPromptFacts(), dir: dir, color: color}, nil
}

func (v *promptView) state() prompt.State { return v.facts.state(v.cfg, v.dir, 0, v.color) }

func printPrompt(v *promptView, w io.Writer) {
	st := v.state()
	fmt.Fprintln(w, prompt.Render(&v.cfg.Prompt, st))
	if right := prompt.Right(&v.cfg.Prompt, st); right != "" {
		fmt.Fprintln(w, right)
	}
}

// moduleField is the Modules field of a module name (its toml tag).
func moduleField(m *userconfig.Modules, name string) (reflect.Value, bool) {
	rv := reflect.ValueOf(m).Elem()
	for i := 0; i < rv.NumField(); i++ {
		if rv.Type().Field(i).Tag.Get("toml") == name {
			return rv.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// origin says where a setting's value came from: the environment, the
// files (named), or the defaults.
func (v *promptView) origin(get func(*userconfig.Config) any) string {
	final, files, def := get(v.cfg), get(v.files), get(v.defaults)
	switch {
	case !reflect.DeepEqual(final, files):
		return "environment"
	case !reflect.DeepEqual(files, def):
		return strings.Join(v.sources, ", ")
	}
	return "default"
}

func explainPrompt(v *promptView, w io.Writer) {
	st := v.state()
	st.Color = false
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SETTING\tVALUE\tFROM")
	formats := []struct {
		name string
		get  func(*userconfig.Config) any
	}{
		{"format.left", func(c *userconfig.Config) any { return c.Prompt.Format.Left }},
		{"format.right", func(c *userconfig.Config) any { return c.Prompt.Format.Right }},
		{"format.continuation", func(c *userconfig.Config) any { return c.Prompt.Format.Continuation }},
		{"format.transient", func(c *userconfig.Config) any { return c.Prompt.Format.Transient }},
		{"template", func(c *userconfig.Config) any { return c.Prompt.Template }},
		{"render.color", func(c *userconfig.Config) any { return c.Render.Color }},
	}
	for _, f := range formats {
		fmt.Fprintf(tw, "%s\t%q\t%s\n", f.name, fmt.Sprint(f.get(v.cfg)), v.origin(f.get))
	}
	fmt.Fprintln(tw, "\t\t")
	fmt.Fprintln(tw, "MODULE\tVALUE HERE\tIN A FORMAT\tSETTINGS FROM")
	for _, name := range prompt.Modules {
		text, _ := prompt.Module(&v.cfg.Prompt, name, st)
		used := "no"
		if usesModule(&v.cfg.Prompt, name) {
			used = "yes"
		}
		from := "(no settings)"
		if _, ok := moduleField(&v.cfg.Prompt.Module, name); ok {
			from = v.origin(func(c *userconfig.Config) any {
				f, _ := moduleField(&c.Prompt.Module, name)
				return f.Interface()
			})
		}
		fmt.Fprintf(tw, "%s\t%q\t%s\t%s\n", name, text, used, from)
	}
	tw.Flush()
}

func benchPrompt(v *promptView, w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "STEP\tMEDIAN\tROUNDS\t")
	// The facts: what a prompt reads (and runs) before it renders.
	var st prompt.State
	rounds := 20
	fmt.Fprintf(tw, "facts (branch%s)\t%s\t%d\t\n", gitNote(v), median(rounds, func() { st = v.state() }), rounds)
	for _, name := range prompt.Modules {
		d := median(promptBenchRounds, func() { prompt.Module(&v.cfg.Prompt, name, st) })
		fmt.Fprintf(tw, "module %s\t%s\t%d\t\n", name, d, promptBenchRounds)
	}
	d := median(promptBenchRounds, func() { prompt.Render(&v.cfg.Prompt, st) })
	fmt.Fprintf(tw, "whole prompt\t%s\t%d\t\n", d, promptBenchRounds)
	tw.Flush()
}

// gitNote says whether the facts include a git status run.
func gitNote(v *promptView) string {
	if usesModule(&v.cfg.Prompt, "git_status") {
		return ", git status"
	}
	return ""
}

// median times f rounds times and returns the median duration.
func median(rounds int, f func()) time.Duration {
	times := make([]time.Duration, rounds)
	for i := range times {
		start := time.Now()
		f()
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	return times[rounds/2]
}
