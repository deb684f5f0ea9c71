package format

// MaxSource is the largest source Source formats (16 MiB): formatting
// holds the source, its tree twice (the check parses the output), a flag
// byte per source byte (the spacing rules' facts from the tree) and the
// output in memory at once.
const MaxSource = 16 << 20

// indentUnit is one level of indentation in the canonical layout.
const indentUnit = "  "
