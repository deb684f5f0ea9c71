package adapters

import (
	"embed"
	"sync"
)

//go:embed bundled/*.toml
var bundledFS embed.FS

var bundled = sync.OnceValue(func() *Catalog { return NewCatalog().Layer(bundledFS, "bundled") })

// Bundled is the catalog Shoal ships, decoded once from the embedded
// data files (bundled/*.toml). A test keeps it free of warnings.
func Bundled() *Catalog { return bundled() }
