// Package nav is Shoal's navigation library: pwd, cd, the session's directory
// stack (pushd, popd, dirs) and frecency navigation (jump, j). The commands
// move the session's working directory through eval's exported Context
// (Dir, Chdir, OldDir, DirStack, SetDirStack, Visited); every file system
// look goes through Context.Host, so the gate sees it. The commands that
// move are session-level: eval refuses them inside functions with the
// hint each declares.
//
// It is the worked example of a standard-library package out of the
// evaluator (issue 25): its entries are one registry Part (Register), which
// internal/stdlib joins with eval's own into the one registry, and its
// transcript tests are testdata/*.txt, run by internal/evaltest.
package nav

import "github.com/shoalgo/shoal/internal/eval"

// Error codes nav raises (the language's codes; see `help errors`).
const (
	codeArg      = "arg_error"
	codeCustom   = "custom"
	codeNotFound = "not_found"
)

// Hints for a session command called inside a function.
const (
	cdHint    = "use `with cwd: dir { ... }` for a scoped change, or call it at the top level"
	stackHint = "the directory stack is session state; call it at the top level"
)

// Register adds nav's commands to p.
func Register(p *eval.Part) {
	registerPwd(p)
	registerDirs(p)
	registerJump(p)
}

// Part is nav's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}
