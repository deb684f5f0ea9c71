package reef

import (
	"strconv"
	"strings"
)

// Version is a tool version as Reef compares it: numeric (dotted
// integers with an optional prerelease), opaque (text with no leading
// number) or unknown.
type Version struct {
	Raw   string
	Nums  []uint64
	Pre   string // prerelease suffix after '-', "" for a final release
	Known bool
}

// Unknown is the version of a candidate nothing has probed.
var Unknown = Version{}

// ParseVersion reads a version leniently: a leading `v` is dropped, dotted
// integers are the numeric part, a `-…` suffix is a prerelease and a
// `+…` suffix is build metadata (ignored in comparison).
func ParseVersion(s string) Version {
	s = strings.TrimSpace(s)
	if s == "" || s == "unknown" {
		return Unknown
	}
	v := Version{Raw: s, Known: true}
	body := strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	if i := strings.IndexByte(body, '+'); i >= 0 {
		body = body[:i]
	}
	num := body
	if i := strings.IndexByte(body, '-'); i >= 0 {
		num, v.Pre = body[:i], body[i+1:]
	}
	nums, ok := dotted(num)
	if !ok {
		return Version{Raw: s, Known: true}
	}
	v.Nums = nums
	return v
}

// dotted parses "22.3.1" into its components.
func dotted(s string) ([]uint64, bool) {
	if s == "" {
		return nil, false
	}
	parts := strings.Split(s, ".")
	if len(parts) > 16 {
		return nil, false
	}
	out := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// String is the version as written, or "unknown".
func (v Version) String() string {
	if !v.Known {
		return "unknown"
	}
	return v.Raw
}

func (v Version) rank() int {
	switch {
	case !v.Known:
		return 0
	case v.Nums == nil:
		return 1
	}
	return 2
}

// Compare orders versions: unknown < opaque < numeric; numeric versions
// component by component (missing components are zero), a final release
// above its prereleases.
func (v Version) Compare(w Version) int {
	if a, b := v.rank(), w.rank(); a != b {
		return cmpInt(a, b)
	}
	switch v.rank() {
	case 0:
		return 0
	case 1:
		return strings.Compare(v.Raw, w.Raw)
	}
	n := max(len(v.Nums), len(w.Nums))
	for i := range n {
		if c := cmpU(at(v.Nums, i), at(w.Nums, i)); c != 0 {
			return c
		}
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	}
	return strings.Compare(v.Pre, w.Pre)
}

func at(xs []uint64, i int) uint64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpInt(a, b int) int { return cmpU(uint64(a), uint64(b)) }

// ConstraintKind is how a constraint matches.
type ConstraintKind int

// The constraint kinds.
const (
	Any     ConstraintKind = iota // "*" or empty: every candidate
	Latest                        // "latest": every candidate, highest preferred
	Numeric                       // "22", "3.12": leading components must match
	Raw                           // other text: the version must begin with it
)

// Constraint is a parsed version requirement.
type Constraint struct {
	Kind ConstraintKind
	Nums []uint64
	Text string // as written (trimmed)
}

// ParseConstraint reads a constraint leniently (see the kinds). It is not
// a semver range language: `^1.2` is a raw prefix.
func ParseConstraint(s string) Constraint {
	s = strings.TrimSpace(s)
	switch s {
	case "", "*":
		return Constraint{Kind: Any, Text: "*"}
	case "latest":
		return Constraint{Kind: Latest, Text: s}
	}
	body := strings.TrimPrefix(s, "v")
	if nums, ok := dotted(body); ok {
		return Constraint{Kind: Numeric, Nums: nums, Text: s}
	}
	return Constraint{Kind: Raw, Text: s}
}

// String renders the constraint as written.
func (c Constraint) String() string { return c.Text }

// NeedsVersion reports whether matching needs a concrete version.
func (c Constraint) NeedsVersion() bool { return c.Kind == Numeric || c.Kind == Raw }

// Satisfied reports whether v meets c.
func (c Constraint) Satisfied(v Version) bool {
	switch c.Kind {
	case Any, Latest:
		return true
	case Numeric:
		if v.Nums == nil {
			return false
		}
		for i, n := range c.Nums {
			if at(v.Nums, i) != n {
				return false
			}
		}
		return true
	}
	return v.Known && strings.HasPrefix(v.Raw, c.Text)
}

// Refine combines a nearer constraint with a farther one: the more
// specific of two compatible constraints, or ok=false when they conflict.
func Refine(near, far Constraint) (Constraint, bool) {
	switch {
	case far.Kind == Any:
		return near, true
	case near.Kind == Any:
		return far, true
	case far.Kind == Latest:
		return near, true
	case near.Kind == Latest:
		return far, true
	case near.Kind == Numeric && far.Kind == Numeric:
		n := min(len(near.Nums), len(far.Nums))
		for i := range n {
			if near.Nums[i] != far.Nums[i] {
				return Constraint{}, false
			}
		}
		if len(far.Nums) > len(near.Nums) {
			return far, true
		}
		return near, true
	case near.Kind == Raw && far.Kind == Raw:
		if strings.HasPrefix(far.Text, near.Text) {
			return far, true
		}
		if strings.HasPrefix(near.Text, far.Text) {
			return near, true
		}
	}
	return Constraint{}, false
}
