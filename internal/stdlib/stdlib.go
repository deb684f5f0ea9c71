// Package stdlib is Shoal's standard library as one list: the registry
// parts eval defines (the language's own names and the library not yet in
// a package) and those of the internal/lib packages. Registry is the one
// registry cmd/shoal, the kernel, the REPL and the conformance runner pass
// in eval.Options.Registry and leash.Env.Registry. A new library package
// adds its Part here and nowhere else.
package stdlib

import (
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/lib/clock"
	"github.com/shoalgo/shoal/internal/lib/fs"
	"github.com/shoalgo/shoal/internal/lib/http"
	"github.com/shoalgo/shoal/internal/lib/journal"
	"github.com/shoalgo/shoal/internal/lib/nav"
	"github.com/shoalgo/shoal/internal/lib/reefcmd"
	"github.com/shoalgo/shoal/internal/lib/secret"
	"github.com/shoalgo/shoal/internal/lib/sys"
	"github.com/shoalgo/shoal/internal/lib/term"
)

// Parts are the registry parts of the standard library: eval's, then each
// library package's.
func Parts() []*eval.Part {
	return append(eval.Parts(),
		fs.Part(),
		nav.Part(),
		sys.Part(),
		http.Part(),
		secret.Part(),
		journal.Part(),
		reefcmd.Part(),
		clock.Part(),
		term.Part(),
	)
}

// Registry builds the standard registry. Each call builds a new one; an
// embedder builds it once (the shoal command at start, the kernel once for
// all its sessions) and shares it read-only.
func Registry() *eval.Registry {
	r, err := eval.NewRegistry(Parts()...)
	if err != nil {
		// The standard parts are fixed: a duplicate is a programming
		// error, which TestRegistry reports.
		panic(err)
	}
	return r
}
