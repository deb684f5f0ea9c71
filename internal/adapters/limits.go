package adapters

// Bounds of the catalog loader and the output parsers. A user's adapter
// directory is input like any other: these keep a mistaken or hostile file
// from costing unbounded memory or time.
const (
	// MaxFileBytes is the largest adapter file the loader reads.
	MaxFileBytes = 256 << 10
	// MaxFiles is how many .toml files one directory may contribute.
	MaxFiles = 256
	// MaxCommands is how many command heads one catalog holds.
	MaxCommands = 1024
	// MaxSubs bounds the subcommands of one command.
	MaxSubs = 256
	// MaxParams bounds the parameters (and positional names, short flags,
	// consumed names, invoke words and effects) of one specification.
	MaxParams = 256
	// MaxTypeBytes bounds a parameter type or output type hint's text;
	// type nesting (list<list<…>>) is parsed iteratively within it.
	MaxTypeBytes = 4096
	// MaxOutputRows bounds the rows (lines, records) one parse yields; a
	// longer output stays raw rather than half parsed.
	MaxOutputRows = 1 << 20
	// MaxFields bounds the fields of a hint and the cells of a row.
	MaxFields = 1024
)
