package lsp

// methodSet answers "does any type have a method called name" from a set
// made once per server: the registry asks every kind in turn, and the
// diagnostics ask for every method call of every version.
type methodSet map[string]bool

// isMethod reports whether some type has a method called name, as
// Registry.IsMethod does.
func (s *Server) isMethod(name string) bool {
	if s.methods == nil {
		all := s.opts.Registry.AllMethods()
		s.methods = make(methodSet, len(all))
		for _, n := range all {
			s.methods[n] = true
		}
	}
	return s.methods[name]
}
