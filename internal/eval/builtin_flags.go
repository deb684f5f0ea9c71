package eval

// BuiltinFlags lists the flags the builtin command name declares in its
// registry entry, as typed: each `--long`, then `-s` for each short
// letter. It is nil for a name that is not a builtin, or one whose flags
// are text it prints (echo).
func (r *Registry) BuiltinFlags(name string) []string {
	b, ok := r.lookupBuiltin(name)
	if !ok || b.TextFlags {
		return nil
	}
	var long, short []string
	for _, f := range b.Flags {
		if f.Long != "" {
			long = append(long, "--"+f.Long)
		}
		for _, r := range f.Short {
			short = append(short, "-"+string(r))
		}
	}
	return append(long, short...)
}
