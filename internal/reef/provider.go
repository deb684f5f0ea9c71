package reef

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Env is what the providers read of the session: its directory, PATH and
// the roots of the tool managers they know.
type Env struct {
	Dir         string   // the working directory (absolute)
	Path        []string // the session's PATH directories, in order
	Home        string
	MiseDataDir string // $MISE_DATA_DIR, "" for ~/.local/share/mise
	CargoHome   string // $CARGO_HOME, "" for ~/.cargo
	// SystemRoots are the directories whose programs are `system`; nil
	// means /usr/bin, /usr/local/bin and /bin.
	SystemRoots []string
	// LocalRoots are the trusted project directories (Chain.LocalRoots):
	// the project-local providers (npm-local, venv) offer a program only
	// from a node_modules/.bin or .venv/bin at or below one of them, so an
	// untrusted checkout's binaries never shadow PATH. Empty: none.
	LocalRoots []string
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// local reports whether dir lies in one of env's trusted project roots.
func (e Env) local(dir string) bool {
	for _, r := range e.LocalRoots {
		if r != "" && filepath.IsAbs(r) && within(dir, filepath.Clean(r)) {
			return true
		}
	}
	return false
}

// Candidate is one executable a provider offers for a tool.
type Candidate struct {
	Tool     string
	Path     string
	Version  Version
	Provider string
	Scope    string // the provider's name, or "system"/"ambient" for the system provider
}

// Providers is the default provider order; it breaks ties between equal
// versions.
var Providers = []string{"npm-local", "venv", "mise", "cargo", "system"}

// systemRoots are the canonical directories whose programs are `system`;
// other PATH directories are `ambient`.
var systemRoots = []string{"/usr/bin", "/usr/local/bin", "/bin"}

// providerIndex is name's place in Providers, or len(Providers).
func providerIndex(name string) int {
	for i, p := range Providers {
		if p == name {
			return i
		}
	}
	return len(Providers)
}

// KnownProvider reports whether name is a provider Reef has.
func KnownProvider(name string) bool { return providerIndex(name) < len(Providers) }

// executable reports whether path is (or links to) a regular file with an
// execute bit.
func executable(fsys FS, path string) bool {
	fi, err := fsys.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// nearest finds the first ancestor of env.Dir in a trusted project root
// holding rel/tool.
func nearest(fsys FS, env Env, rel, tool string) string {
	d := filepath.Clean(env.Dir)
	for range MaxScopeDepth {
		p := filepath.Join(d, rel, tool)
		if env.local(d) && executable(fsys, p) {
			return p
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return ""
}

// Candidates asks provider for tool's candidates (versions unprobed).
func Candidates(fsys FS, env Env, provider, tool string) []Candidate {
	if tool == "" || tool == "." || tool == ".." || filepath.Base(tool) != tool {
		return nil
	}
	one := func(p string) []Candidate {
		if p == "" {
			return nil
		}
		return []Candidate{{Tool: tool, Path: p, Provider: provider, Scope: provider}}
	}
	switch provider {
	case "npm-local":
		return one(nearest(fsys, env, "node_modules/.bin", tool))
	case "venv":
		return one(nearest(fsys, env, ".venv/bin", tool))
	case "cargo":
		root := env.CargoHome
		if root == "" && env.Home != "" {
			root = filepath.Join(env.Home, ".cargo")
		}
		if root == "" {
			return nil
		}
		if p := filepath.Join(root, "bin", tool); executable(fsys, p) {
			return one(p)
		}
	case "mise":
		return miseCandidates(fsys, env, tool)
	case "system":
		return systemCandidates(fsys, env, tool)
	}
	return nil
}

func miseCandidates(fsys FS, env Env, tool string) []Candidate {
	root := env.MiseDataDir
	if root == "" && env.Home != "" {
		root = filepath.Join(env.Home, ".local", "share", "mise")
	}
	if root == "" {
		return nil
	}
	dir := filepath.Join(root, "installs", tool)
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Candidate
	for _, e := range ents {
		if len(out) >= MaxCandidates {
			break
		}
		p := filepath.Join(dir, e.Name(), "bin", tool)
		if executable(fsys, p) {
			out = append(out, Candidate{Tool: tool, Path: p, Version: ParseVersion(e.Name()), Provider: "mise", Scope: "mise"})
		}
	}
	return out
}

func systemCandidates(fsys FS, env Env, tool string) []Candidate {
	var out []Candidate
	seen := map[string]bool{}
	visit := func(dir, scope string) {
		if dir == "" || !filepath.IsAbs(dir) || seen[filepath.Clean(dir)] || len(out) >= MaxCandidates {
			return
		}
		seen[filepath.Clean(dir)] = true
		p := filepath.Join(dir, tool)
		if executable(fsys, p) {
			out = append(out, Candidate{Tool: tool, Path: p, Provider: "system", Scope: scope})
		}
	}
	roots := env.SystemRoots
	if roots == nil {
		roots = systemRoots
	}
	for _, r := range roots {
		visit(r, "system")
	}
	for i, d := range env.Path {
		if i >= MaxPathDirs {
			break
		}
		visit(d, "ambient")
	}
	return out
}

// AllCandidates is every provider's candidates for tool, in provider
// order (what `which --all` lists).
func AllCandidates(fsys FS, env Env, tool string) []Candidate {
	var out []Candidate
	for _, p := range Providers {
		out = append(out, Candidates(fsys, env, p, tool)...)
	}
	return out
}

// Ambient is the first executable named tool on the session's PATH, as an
// unconstrained lookup would find it; "" when none.
func Ambient(fsys FS, env Env, tool string) string {
	for i, d := range env.Path {
		if i >= MaxPathDirs {
			break
		}
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if p := filepath.Join(d, tool); executable(fsys, p) {
			return p
		}
	}
	return ""
}

// rankCandidates sorts best first: highest version, then provider order,
// then path.
func rankCandidates(cs []Candidate) {
	sort.SliceStable(cs, func(i, j int) bool {
		if c := cs[i].Version.Compare(cs[j].Version); c != 0 {
			return c > 0
		}
		if a, b := providerIndex(cs[i].Provider), providerIndex(cs[j].Provider); a != b {
			return a < b
		}
		return cs[i].Path < cs[j].Path
	})
}

// versionPatterns are a dotted version and a bare integer, compiled the
// first time a version is probed rather than at every start (by a sync.Once:
// a sync.OnceValues's closure is made by a package initialiser).
func versionPatterns() (dotted, integer *regexp.Regexp) {
	versionREs.Do(func() {
		versionREs.dotted = regexp.MustCompile(`\d+(?:\.\d+)+(?:-[0-9A-Za-z.]+)?`)
		versionREs.integer = regexp.MustCompile(`\d+`)
	})
	return versionREs.dotted, versionREs.integer
}

var versionREs struct {
	sync.Once
	dotted, integer *regexp.Regexp
}

// VersionFromOutput finds a version in `--version` output: the first
// dotted numeric token, else the first bare integer.
func VersionFromOutput(out []byte) Version {
	if len(out) > MaxProbeOutput {
		out = out[:MaxProbeOutput]
	}
	dottedRE, intRE := versionPatterns()
	if m := dottedRE.Find(out); m != nil {
		return ParseVersion(string(m))
	}
	if m := intRE.Find(out); m != nil {
		return ParseVersion(string(m))
	}
	return Unknown
}
