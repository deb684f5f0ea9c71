package namespaces

import (
	"github.com/shoalgo/shoal/internal/value"
)

// Config builds the config namespace over a host-injected snapshot of the
// resolved configuration; nil means nothing was injected. config.all()
// returns the snapshot and config.get(key) one top-level entry or null.
//
// Bare field access (config.history) reads a top-level key and is null when
// absent; the evaluator implements that with ConfigField.
func Config(snapshot *value.Record) *value.Namespace {
	if snapshot == nil {
		snapshot = value.NewRecord(nil, nil)
	}
	return newNamespace("config", nil, map[string]func(value.Env, value.Args) (value.Value, error){
		"all": func(_ value.Env, a value.Args) (value.Value, error) {
			if err := arity("config.all", a, 0, 0); err != nil {
				return nil, err
			}
			return snapshot, nil
		},
		"get": func(_ value.Env, a value.Args) (value.Value, error) {
			key, err := textArg("config.get", a)
			if err != nil {
				return nil, err
			}
			if v, ok := snapshot.Get(key); ok {
				return v, nil
			}
			return value.Nil, nil
		},
	})
}

// ConfigField reads top-level key of the config namespace ns (one Config
// built) as bare field access does: the entry, or null when absent.
func ConfigField(ns *value.Namespace, key string) value.Value {
	get, ok := ns.Members["get"].(*value.Builtin)
	if !ok {
		return value.Nil
	}
	v, err := get.Fn(nil, value.Args{Pos: []value.Value{value.Str(key)}})
	if err != nil {
		return value.Nil
	}
	return v
}
