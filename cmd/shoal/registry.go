package main

import (
	"sync"

	"github.com/shoalgo/shoal/internal/stdlib"
)

// registry is the one registry of builtin commands, functions, methods
// and namespaces the process's session runs with and displays by, built
// on first use (a kernel session uses the kernel's own).
var registry = sync.OnceValue(stdlib.Registry)
