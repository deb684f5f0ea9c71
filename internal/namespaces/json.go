package namespaces

import (
	"errors"
	"strings"

	"github.com/shoalgo/shoal/internal/value"
)

func jsonNamespace() *value.Namespace {
	return newNamespace("json", nil, map[string]func(value.Env, value.Args) (value.Value, error){
		"parse":     jsonParse,
		"stringify": jsonStringify,
	})
}

// jsonParse implements json.parse(text: str).
func jsonParse(_ value.Env, a value.Args) (value.Value, error) {
	text, err := textArg("json.parse", a)
	if err != nil {
		return nil, err
	}
	v, err := value.ParseJSON([]byte(text))
	if err != nil {
		return nil, parseFailure("json.parse", "JSON", err)
	}
	return v, nil
}

// jsonStringify implements json.stringify(value, pretty: bool = false).
func jsonStringify(_ value.Env, a value.Args) (value.Value, error) {
	const fn = "json.stringify"
	if err := arity(fn, a, 1, 2, "pretty"); err != nil {
		return nil, err
	}
	pretty, err := boolOption(fn, "pretty", a, 1)
	if err != nil {
		return nil, err
	}
	out, err := value.JSONText(a.Pos[0], pretty)
	if err != nil {
		return nil, err
	}
	return value.Str(out), nil
}

// parseFailure turns a decoder's error for a document in format into an
// arg_error that keeps the decoder's message (without its own prefixes);
// a too_deep or too_large error stays what it is.
func parseFailure(fn, format string, err error) error {
	if e, ok := passBounds(err); ok {
		ve := *e.(*value.Error)
		if !strings.HasPrefix(ve.Msg, fn+": ") {
			ve.Msg = fn + ": " + ve.Msg
		}
		return &ve
	}
	msg := err.Error()
	var ve *value.Error
	if errors.As(err, &ve) {
		msg = ve.Msg
	}
	msg = strings.TrimPrefix(msg, "invalid "+format+": ")
	msg = strings.TrimPrefix(msg, strings.ToLower(format)+": ")
	return value.Errorf(value.CodeArg, "%s: invalid %s: %s", fn, format, msg)
}

// ParseJSON decodes one JSON document as json.parse does.
func ParseJSON(text string) (value.Value, error) {
	return jsonParse(nil, value.Args{Pos: []value.Value{value.Str(text)}})
}
