package userconfig

import (
	"bytes"
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Locate finds where a configuration document is malformed: the line and
// column of its first TOML syntax or type error, or of a `version` other
// than 1, as an *Error naming file; nil when the document is well formed.
// It knows no schema (unknown keys are not its business), so it can point
// into any layer of the configuration, the project's .shoal.toml too.
func Locate(file string, data []byte) *Error {
	if len(data) > MaxFileBytes {
		return nil
	}
	var m map[string]any
	err := toml.NewDecoder(bytes.NewReader(data)).Decode(&m)
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return &Error{File: file, Line: line, Col: col, Key: strings.Join(de.Key(), "."), Msg: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	if err != nil {
		return &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	if v, ok := m["version"]; ok {
		if n, isInt := v.(int64); !isInt || n != 1 {
			line, col := keyPosition(data, "version")
			return &Error{File: file, Line: line, Col: col, Key: "version", Msg: "unsupported config version (expected 1)"}
		}
	}
	return nil
}
