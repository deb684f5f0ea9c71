package main

import (
	"context"
	"io"
)

func promptCommand(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return 0
}
