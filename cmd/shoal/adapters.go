package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/shoalgo/shoal/internal/adapters"
)

// sessionAdapters is the CLI's command-adapter catalog: the bundled set
// layered with the user's directory ($XDG_CONFIG_HOME/shoal/adapters, else
// ~/.config/shoal/adapters), decoded when a command first needs it, so
// `shoal -c` that runs no command pays nothing. Problems with the user's
// files are reported on stderr once, with file, line and column; their
// valid siblings still load.
func sessionAdapters(stderr io.Writer) *adapters.Catalog {
	return adapters.Lazy(func() *adapters.Catalog {
		base := adapters.Bundled()
		dir := adapters.UserDir(os.Getenv)
		if dir == "" {
			return base
		}
		c := base.Layer(os.DirFS(dir), ".")
		for _, w := range c.Warnings()[len(base.Warnings()):] {
			e := *w
			e.File = filepath.Join(dir, e.File)
			fmt.Fprintf(stderr, "shoal: adapters: %v\n", &e)
		}
		return c
	})
}
