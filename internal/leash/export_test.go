package leash

// Internal names the external tests (package leash_test, which can import
// the evaluator and so its builtin registry) need.
var RevRank = revRank

const MaxCallDepth = maxCallDepth

var (
	JSONStringBound = jsonStringBound
	EffectBound     = effectBound
	PlanFullNote    = planFullNote
)
