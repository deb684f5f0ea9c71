package main

import (
	"fmt"
	"io"
	"os"

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
		c, problems := adapters.WithUser(os.Getenv, os.DirFS)
		for _, e := range problems {
			fmt.Fprintf(stderr, "shoal: adapters: %v\n", e)
		}
		return c
	})
}
