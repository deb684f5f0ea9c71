package eval

import "time"

// Bounds on a session's background work, set in one place (see
// docs/kernel.md, "Limits").
const (
	// MaxLiveTasks bounds the language tasks (spawn, `cmd &`, `{ … } &`,
	// on handlers, parallel branches) one session has running at once; one
	// more fails with quota_exceeded naming BudgetSessionTasks. The kernel
	// also bounds them per principal and kernel-wide (Options.Tasks, see
	// kernel.Limits LangTasks and PrincipalLangTasks).
	MaxLiveTasks = 64

	// MaxTaskRecords bounds the tasks the session's job table (`jobs`)
	// remembers; past it the oldest finished task is forgotten (its handle
	// still answers await). Running tasks are always listed.
	MaxTaskRecords = 256

	// MaxJobOutput bounds the output a job started with `&` keeps between
	// two reports (Options.KeepJobOutput); past it the oldest kept bytes
	// are dropped and the next report says how many.
	MaxJobOutput = 256 << 10

	// SchedQuantum is how long an evaluation keeps the session lock while
	// another goroutine of the session waits for it, before it yields at
	// its next checkpoint.
	SchedQuantum = 2 * time.Millisecond

	// SchedMinTicks is how many checkpoints an evaluation passes after
	// taking the session lock before it may yield it (see SchedQuantum).
	SchedMinTicks = 64

	// MaxParallel bounds the thunks one parallel call or the items one
	// par_map call runs at once; the rest wait for a free branch.
	MaxParallel = 16

	// MaxStoredPlans bounds the programs `plan` keeps in one session for
	// `apply`; past it the oldest is dropped and its id answers not_found.
	MaxStoredPlans = 32

	// MaxContentRefBytes is the largest blob a `val:blake3:` content ref
	// loads into the evaluator when a method is called on it; a larger one
	// is too_large (read it in ranges with blob.get instead).
	MaxContentRefBytes = 16 << 20

	// MaxJumpDirs bounds the directories a session's frecency table (for
	// `jump`/`j`) remembers; past it the lowest-ranked one is forgotten.
	MaxJumpDirs = 512

	// MaxStoredPlanBytes bounds the source the programs `plan` keeps in one
	// session span together (their trees are proportional to it); past it
	// the oldest are dropped, and one plan larger than all of it is refused
	// (quota_exceeded, BudgetStoredPlans).
	MaxStoredPlanBytes = 256 << 10

	// MaxUndoSteps bounds the inverse steps one evaluation records (an
	// UndoLog); past it the evaluation has no complete inverse.
	MaxUndoSteps = 1024

	// maxSuggestPathDirs and maxSuggestPathNames bound what a mistyped
	// command head lists of PATH for its did-you-mean: directories read,
	// and names looked at over all of them.
	maxSuggestPathDirs  = 64
	maxSuggestPathNames = 50_000
)

// BudgetSessionTasks names the MaxLiveTasks bound in its refusal.
const BudgetSessionTasks = "session_lang_tasks"

// BudgetStoredPlans names the MaxStoredPlanBytes bound in its refusal.
const BudgetStoredPlans = "stored_plan_bytes"
