package adapters

import (
	"embed"
	"sync"
)

//go:embed bundled/*.toml
var bundledFS embed.FS

// bundled is a sync.Once, not a sync.OnceValue, whose closure a package
// initialiser would make at every start.
var bundled struct {
	sync.Once
	c *Catalog
}

// Bundled is the catalog Shoal ships, decoded once from the embedded
// data files (bundled/*.toml). A test keeps it free of warnings.
func Bundled() *Catalog {
	bundled.Do(func() { bundled.c = NewCatalog().Layer(bundledFS, "bundled") })
	return bundled.c
}
