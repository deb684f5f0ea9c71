// Package secret is the secret namespace: secret.get(NAME) reads a typed
// secret from the host's secret store (host.Host.Secret, which asks
// secret_use of the name). A secret value renders, serialises and travels
// on the wire as its name only. Its entries are one registry Part.
package secret

import (
	"strings"
	"unicode/utf8"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/leash"
	"github.com/shoalgo/shoal/internal/value"
)

// Register adds the secret namespace to p.
func Register(p *eval.Part) { p.Namespace(secretNamespace()) }

// Part is secret's registry part, for eval.NewRegistry.
func Part() *eval.Part {
	p := &eval.Part{}
	Register(p)
	return p
}

// secretNamespace reads typed secrets: secret.get(name) asks the host
// (Host.Secret: secret_use of the name) for the stored material and
// returns a secret value, which renders, serialises and travels on the
// wire as its name only. One trailing newline of the stored text is
// dropped (a file written with echo). Errors: arg_error for a bad call or
// name, not_found for a name the store lacks, permission for a store file
// others may read, utf8_error for material that is not text, denied for a
// refusal.
func secretNamespace() *eval.Namespace {
	return &eval.Namespace{Name: "secret",
		Help: eval.Help{Summary: "typed secrets from the secret store (shown by name only)", Usage: "secret.get(NAME)", Example: "secret.get(\"api-token\")"},
		Members: []*eval.Member{{Name: "get", Value: secretGet(), Effects: effSecretGet,
			Help: eval.Help{Summary: "the stored secret called NAME (secret_use of the name)", Usage: "secret.get(NAME)", Example: "secret.get(\"api-token\")"}}}}
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
		c, ok := eval.ContextOf(env)
		if !ok {
			return nil, value.Errorf(value.CodeType, "secret.get needs an evaluation context")
		}
		if len(a.Pos) != 1 || len(a.Named) > 0 {
			return nil, value.Errorf(value.CodeArg, "secret.get takes one name: secret.get(\"api-token\")")
		}
		name, ok := a.Pos[0].(value.Str)
		if !ok {
			return nil, value.Errorf(value.CodeArg, "secret.get: the name must be str, got %s", value.TypeName(a.Pos[0]))
		}
		if err := host.CheckSecretName(string(name)); err != nil {
			return nil, value.Errorf(value.CodeArg, "secret.get: %v", err)
		}
		data, err := c.Host().Secret(c.Ctx(), string(name))
		if err != nil {
			return nil, eval.HostError(err)
		}
		if !utf8.Valid(data) {
			return nil, value.Errorf(value.CodeUTF8, "secret %s is not valid UTF-8 text", name)
		}
		text := strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
		return value.NewSecret(string(name), text), nil
	}}
}
