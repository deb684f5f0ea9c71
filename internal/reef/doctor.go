package reef

// Finding is one row of `reef doctor`.
type Finding struct {
	Check  string // "drift", "shadowed_ambient", "orphan", "lock_path", "manifest", "trust" (the evaluator's: a directory ignored as untrusted)
	Name   string // the tool, or the manifest's path for "manifest"
	Status string // drift: ok, drift, missing, unlocked, conflict; others: the check's name
	Path   string // the locked path, when there is one
	Hash8  string // the locked digest's prefix
	Actual string // what was found instead (digest prefix, ambient path, error)
}

// Doctor checks a chain against its lock: a drift row for every
// constrained tool, shadowed_ambient for a locked tool that PATH would
// resolve to another binary, orphan for a lock entry no scope mentions,
// lock_path for an entry naming a program its provider would not find
// (CheckEntry: such a lock is refused when a command resolves through it;
// the doctor only reads it, to say what is wrong), and manifest for each
// file discovery had to skip.
func (r *Resolver) Doctor(c *Chain, env Env, lock *Lock, skipped []error) []Finding {
	var out []Finding
	if lock == nil {
		lock = NewLock()
	}
	names := c.Names()
	for _, n := range names {
		f := Finding{Check: "drift", Name: n}
		d, _, err := c.Decide(n)
		e, locked := lock.Entries[n]
		switch {
		case err != nil:
			f.Status, f.Actual = "conflict", err.Error()
		case !locked:
			f.Status = "unlocked"
		default:
			f.Path, f.Hash8 = e.Path, short(e.Blake3)
			sum, herr := r.Hash(e.Path)
			switch {
			case herr != nil:
				f.Status, f.Actual = "missing", errText(herr)
			case sum != e.Blake3:
				f.Status, f.Actual = "drift", short(sum)
			case !d.Constraint.Satisfied(ParseVersion(e.Version)) || (d.Provider != "" && d.Provider != e.Provider):
				f.Status, f.Actual = "unlocked", "the lock entry no longer satisfies `"+d.Constraint.String()+"`"
			default:
				f.Status = "ok"
			}
		}
		out = append(out, f)
	}
	for _, n := range names {
		e, ok := lock.Entries[n]
		if !ok {
			continue
		}
		if a := Ambient(r.FS, env, n); a != "" && a != e.Path {
			out = append(out, Finding{Check: "shadowed_ambient", Name: n, Status: "shadowed_ambient",
				Path: e.Path, Hash8: short(e.Blake3), Actual: a})
		}
	}
	for _, n := range lock.Names() {
		if !c.Constrained(n) {
			e := lock.Entries[n]
			out = append(out, Finding{Check: "orphan", Name: n, Status: "orphan", Path: e.Path, Hash8: short(e.Blake3)})
		}
	}
	for _, n := range lock.Names() {
		e := lock.Entries[n]
		if err := CheckEntry(env, lock.Dir, n, e); err != nil {
			out = append(out, Finding{Check: "lock_path", Name: n, Status: "lock_path", Path: e.Path, Hash8: short(e.Blake3), Actual: errText(err)})
		}
	}
	for _, err := range skipped {
		f := Finding{Check: "manifest", Status: "malformed", Actual: err.Error()}
		if me, ok := err.(*ManifestError); ok {
			f.Name, f.Actual = me.Source, me.Msg
		}
		out = append(out, f)
	}
	return out
}
