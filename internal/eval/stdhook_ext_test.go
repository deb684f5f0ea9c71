package eval_test

import (
	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/stdlib"
)

// The in-package tests run on the standard registry (see UseStdRegistry).
func init() { eval.UseStdRegistry(stdlib.Registry()) }
