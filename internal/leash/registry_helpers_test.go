package leash_test

import "github.com/shoalgo/shoal/internal/stdlib"

// testRegistry is the standard registry the tests derive with, as every
// embedder passes it in Env.Registry.
var testRegistry = stdlib.Registry()
