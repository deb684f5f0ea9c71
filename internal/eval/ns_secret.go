package eval

import (
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// secretNamespace reads typed secrets: secret.get(name) asks the host
// (Host.Secret: secret_use of the name) for the stored material and
// returns a secret value, which renders, serialises and travels on the
// wire as its name only. One trailing newline of the stored text is
// dropped (a file written with echo). Errors: arg_error for a bad call or
// name, not_found for a name the store lacks, permission for a store file
// others may read, utf8_error for material that is not text, denied for a
// refusal.
func secretNamespace() *Namespace {
	return &Namespace{Name: "secret",
		Help: Help{Summary: "typed secrets from the secret store (shown by name only)", Usage: "secret.get(NAME)", Example: "secret.get(\"api-token\")"},
		Members: []*Member{{Name: "get", Value: secretGet(), Effects: effSecretGet,
			Help: Help{Summary: "the stored secret called NAME (secret_use of the name)", Usage: "secret.get(NAME)", Example: "secret.get(\"api-token\")"}}}}
}

// effSecretGet: secret.get(NAME) uses the secret it names.
func effSecretGet(d *leash.Deriver) {
	if !d.Field() {
		d.SecretUse()
	}
}

// secretGet is secret.get.
func secretGet() *value.Builtin {
	return &value.Builtin{Name: "secret.get", Fn: func(env value.Env, a value.Args) (value.Value, error) {
		t, ok := env.(*thread)
		if !ok {
			return nil, errorf(codeType, "secret.get needs an evaluation context")
		}
		if len(a.Pos) != 1 || len(a.Named) > 0 {
			return nil, errorf(codeArg, "secret.get takes one name: secret.get(\"api-token\")")
		}
		name, ok := a.Pos[0].(value.Str)
		if !ok {
			return nil, errorf(codeArg, "secret.get: the name must be str, got %s", value.TypeName(a.Pos[0]))
		}
		if err := host.CheckSecretName(string(name)); err != nil {
			return nil, errorf(codeArg, "secret.get: %v", err)
		}
		data, err := t.host.Secret(t.ctx, string(name))
		if err != nil {
			return nil, hostError(err)
		}
		if !utf8.Valid(data) {
			return nil, errorf(codeUTF8, "secret %s is not valid UTF-8 text", name)
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
		return value.NewSecret(string(name), text), nil
	}}
}
