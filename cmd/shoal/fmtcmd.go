package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/shoalgo/shoal/internal/atomicfile"
	"github.com/shoalgo/shoal/internal/diag"
	"github.com/shoalgo/shoal/internal/format"
)

const fmtUsage = `usage: shoal fmt [--check | -l | -d | -w] [FILE...]

Lays Shoal source out canonically (internal/format), keeping every comment,
string and interpreter body. With no FILE, formats standard input to
standard output.

  (none)   print the formatted source
  --check  print nothing; exit 1 when any file would change
  -l       list the files whose formatting differs
  -d       print a unified diff of the changes
  -w       rewrite the files in place (atomically)

Exit status: 0; 1 when --check finds a file to change; 2 for bad usage, an
unreadable file, or a source that does not parse (or that the formatter
refuses): then nothing is written.
`

// fmtResult is one source, read and formatted.
type fmtResult struct {
	name     string
	src, out []byte
}

// fmtCommand is shoal fmt.
func fmtCommand(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("shoal fmt", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	check := fs.Bool("check", false, "exit 1 when any file would change")
	list := fs.Bool("l", false, "list the files whose formatting differs")
	diff := fs.Bool("d", false, "print a unified diff")
	write := fs.Bool("w", false, "rewrite the files in place")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, fmtUsage)
			return 0
		}
		fmt.Fprintf(stderr, "shoal fmt: %v\n%s", err, fmtUsage)
		return 2
	}
	modes := 0
	for _, on := range []bool{*check, *list, *diff, *write} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		fmt.Fprintf(stderr, "shoal fmt: --check, -l, -d and -w exclude one another\n")
		return 2
	}
	if *write && fs.NArg() == 0 {
		fmt.Fprintf(stderr, "shoal fmt: -w needs a FILE to rewrite\n")
		return 2
	}
	// Read and format everything first: one failure and nothing is written.
	var results []fmtResult
	failed := false
	if fs.NArg() == 0 {
		src, err := readBounded(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "shoal fmt: reading stdin: %v\n", err)
			return 2
		}
		r, ok := formatOne("<stdin>", src, stderr)
		if !ok {
			return 2
		}
		results = append(results, r)
	}
	for _, name := range fs.Args() {
		src, err := readSourceFile(name)
		if err != nil {
			fmt.Fprintf(stderr, "shoal fmt: %v\n", err)
			failed = true
			continue
		}
		r, ok := formatOne(name, src, stderr)
		failed = failed || !ok
		results = append(results, r)
	}
	if failed {
		return 2
	}
	status := 0
	for _, r := range results {
		changed := string(r.src) != string(r.out)
		switch {
		case *check:
			if changed {
				fmt.Fprintf(stderr, "shoal fmt: %s is not formatted\n", r.name)
				status = 1
			}
		case *list:
			if changed {
				fmt.Fprintln(stdout, r.name)
			}
		case *diff:
			writeUnifiedDiff(stdout, r.name, string(r.src), string(r.out))
		case *write:
			if changed {
				if err := rewrite(r.name, r.out); err != nil {
					fmt.Fprintf(stderr, "shoal fmt: %v\n", err)
					status = 2
				}
			}
		default:
			_, _ = stdout.Write(r.out)
		}
	}
	return status
}

// formatOne formats src, reporting a failure (the parser's diagnostic for
// a source that does not parse) on stderr.
func formatOne(name string, src []byte, stderr io.Writer) (fmtResult, bool) {
	out, err := format.Source(src)
	if err != nil {
		var pe *format.ParseError
		if errors.As(err, &pe) {
			fmt.Fprint(stderr, diag.FormatStyled(name, string(src), pe.Err, terminalDiagStyles(stderr)))
		} else {
			fmt.Fprintf(stderr, "shoal fmt: %s: %v\n", name, err)
		}
		return fmtResult{}, false
	}
	return fmtResult{name: name, src: src, out: out}, true
}

// readBounded reads r whole, refusing more than format.MaxSource bytes.
func readBounded(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, format.MaxSource+1))
	if err != nil {
		return nil, err
	}
	if len(data) > format.MaxSource {
		return nil, fmt.Errorf("more than the formatter's limit of %d bytes", format.MaxSource)
	}
	return data, nil
}

// readSourceFile reads a regular file of at most format.MaxSource bytes.
func readSourceFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	data, err := readBounded(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return data, nil
}

// rewrite replaces the file name with data atomically, keeping its mode.
func rewrite(name string, data []byte) error {
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(name, data, st.Mode().Perm()); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
