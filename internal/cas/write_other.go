//go:build !linux

package cas

import (
	"context"
	"os"
)

// writeAtomic writes data to a fresh temporary file in dir and renames it
// to p.
func (s *Store) writeAtomic(dir, p string, data []byte) error {
	made := &s.made
	if !made.has(dir) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		made.set(dir)
	}
	tmp, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(name)
		return werr
	}
	if err := os.Rename(name, p); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// spareFile is nothing here: every Put creates its temporary file.
type spareFile struct{}

// RunSpares returns at once here: every Put creates its temporary file.
func (s *Store) RunSpares(context.Context) {}

// spareName is "": there are no spares here.
func (s *Store) spareName() string { return "" }
