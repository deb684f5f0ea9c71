package sandbox

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// The rules travel to the trampoline as one argument:
//
//	1;<flags>;<read-only paths>;<read-write paths>;<connect ports>;<bind ports>
//
// flags is a subset of "FNHE" in that order (RestrictFS, RestrictNet,
// Hermetic, and E: the environment is hidden, see Command); lists are comma-separated and may be empty; ports are
// decimal without leading zeros; paths are absolute and clean, with every
// byte outside [A-Za-z0-9/._+~@:=-] written as %XX (upper-case hex), so
// any byte string but NUL survives. The decoder accepts exactly what the
// encoder writes (one spelling per Rules), and nothing longer than
// MaxEncoded.
const encodingVersion = "1"

// DecodeError is the trampoline's refusal of an argument that is not an
// encoding of Rules.
type DecodeError struct{ Msg string }

func (e *DecodeError) Error() string { return "sandbox: bad encoded rules: " + e.Msg }

func encode(r Rules, hiddenEnv bool) string {
	var b strings.Builder
	b.WriteString(encodingVersion)
	b.WriteByte(';')
	if r.RestrictFS {
		b.WriteByte('F')
	}
	if r.RestrictNet {
		b.WriteByte('N')
	}
	if r.Hermetic {
		b.WriteByte('H')
	}
	if hiddenEnv {
		b.WriteByte('E')
	}
	for _, paths := range [][]string{r.ReadOnly, r.ReadWrite} {
		b.WriteByte(';')
		for i, p := range paths {
			if i > 0 {
				b.WriteByte(',')
			}
			escapePath(&b, p)
		}
	}
	for _, ports := range [][]uint16{r.ConnectTCP, r.BindTCP} {
		b.WriteByte(';')
		for i, p := range ports {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(p)))
		}
	}
	return b.String()
}

func plainByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("/._+~@:=-", c) >= 0
}

const upperHex = "0123456789ABCDEF"

func escapePath(b *strings.Builder, p string) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if plainByte(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
}

// decode parses what encode writes; anything else is a *DecodeError.
func decode(s string) (r Rules, hiddenEnv bool, err error) {
	r, hiddenEnv, err = decodeRules(s)
	if err != nil {
		return Rules{}, false, err
	}
	return r, hiddenEnv, nil
}

func decodeRules(s string) (r Rules, hiddenEnv bool, err error) {
	if len(s) > MaxEncoded {
		return r, false, &DecodeError{Msg: fmt.Sprintf("%d bytes, more than %d", len(s), MaxEncoded)}
	}
	f := strings.Split(s, ";")
	if len(f) != 6 {
		return r, false, &DecodeError{Msg: fmt.Sprintf("%d fields, want 6", len(f))}
	}
	if f[0] != encodingVersion {
		return r, false, &DecodeError{Msg: fmt.Sprintf("version %q, want %q", f[0], encodingVersion)}
	}
	flags := f[1]
	for _, fl := range []struct {
		c byte
		p *bool
	}{{'F', &r.RestrictFS}, {'N', &r.RestrictNet}, {'H', &r.Hermetic}, {'E', &hiddenEnv}} {
		if flags != "" && flags[0] == fl.c {
			*fl.p = true
			flags = flags[1:]
		}
	}
	if flags != "" {
		return r, false, &DecodeError{Msg: fmt.Sprintf("flags %q, want a subset of \"FNHE\" in that order", f[1])}
	}
	if r.ReadOnly, err = decodePaths(f[2]); err != nil {
		return r, false, err
	}
	if r.ReadWrite, err = decodePaths(f[3]); err != nil {
		return r, false, err
	}
	if len(r.ReadOnly)+len(r.ReadWrite) > MaxRoots {
		return r, false, &DecodeError{Msg: fmt.Sprintf("more than %d roots", MaxRoots)}
	}
	if r.ConnectTCP, err = decodePorts(f[4]); err != nil {
		return r, false, err
	}
	if r.BindTCP, err = decodePorts(f[5]); err != nil {
		return r, false, err
	}
	if len(r.ConnectTCP)+len(r.BindTCP) > MaxPorts {
		return r, false, &DecodeError{Msg: fmt.Sprintf("more than %d ports", MaxPorts)}
	}
	return r, hiddenEnv, nil
}

func decodePaths(field string) ([]string, error) {
	if field == "" {
		return nil, nil
	}
	var out []string
	for _, e := range strings.Split(field, ",") {
		p, err := unescapePath(e)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(p) || filepath.Clean(p) != p {
			return nil, &DecodeError{Msg: fmt.Sprintf("path %q is not absolute and clean", p)}
		}
		out = append(out, p)
	}
	return out, nil
}

func unescapePath(e string) (string, error) {
	var b strings.Builder
	b.Grow(len(e))
	for i := 0; i < len(e); i++ {
		c := e[i]
		if plainByte(c) {
			b.WriteByte(c)
			continue
		}
		if c != '%' || i+2 >= len(e) {
			return "", &DecodeError{Msg: fmt.Sprintf("byte %q at %d of %q is neither plain nor a %%XX escape", c, i, e)}
		}
		hi, lo := strings.IndexByte(upperHex, e[i+1]), strings.IndexByte(upperHex, e[i+2])
		if hi < 0 || lo < 0 {
			return "", &DecodeError{Msg: fmt.Sprintf("bad escape %q in %q", e[i:i+3], e)}
		}
		v := byte(hi<<4 | lo)
		if v == 0 || plainByte(v) {
			return "", &DecodeError{Msg: fmt.Sprintf("escape %q in %q is not the one spelling of its byte", e[i:i+3], e)}
		}
		b.WriteByte(v)
		i += 2
	}
	return b.String(), nil
}

func decodePorts(field string) ([]uint16, error) {
	if field == "" {
		return nil, nil
	}
	var out []uint16
	for _, e := range strings.Split(field, ",") {
		n, err := strconv.ParseUint(e, 10, 16)
		if err != nil || (len(e) > 1 && e[0] == '0') {
			return nil, &DecodeError{Msg: fmt.Sprintf("port %q is not a decimal number from 0 to 65535", e)}
		}
		out = append(out, uint16(n))
	}
	return out, nil
}
