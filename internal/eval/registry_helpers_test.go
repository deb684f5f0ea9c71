package eval

// testRegistry is the standard registry every test session shares, built
// once as an embedder builds it.
var testRegistry = DefaultRegistry()
