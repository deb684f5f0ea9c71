package mcp

import (
	"context"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/shoalgo/shoal/proto"
)

// TestAnnotationsFollowEffects: every advertised tool's annotations are
// what its effect kinds give, every kind of the wire vocabulary has
// traits, and shoal_exec can cause every kind.
func TestAnnotationsFollowEffects(t *testing.T) {
	for _, k := range proto.EffectKinds {
		if _, ok := traits[k]; !ok {
			t.Errorf("effect kind %s has no traits", k)
		}
	}
	for k := range traits {
		if k != procSignal && !slices.Contains(proto.EffectKinds, k) {
			t.Errorf("traits of %s, which is not an effect kind", k)
		}
	}
	if !slices.Equal(toolEffects("shoal_exec"), proto.EffectKinds) {
		t.Errorf("shoal_exec's effects %v, want every kind", toolEffects("shoal_exec"))
	}
	f, err := New(nil, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := inMemoryClient(t, ctx, f).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if want := annotations(toolEffects(tool.Name)); !reflect.DeepEqual(tool.Annotations, want) {
			t.Errorf("%s: annotations %+v, its effects give %+v", tool.Name, tool.Annotations, want)
		}
	}
	// A kind without traits is taken to do anything.
	if a := annotations([]string{"no_such_kind"}); a.ReadOnlyHint || !*a.DestructiveHint || !*a.OpenWorldHint {
		t.Errorf("unknown kind: %+v", a)
	}
	if a := annotations(nil); !a.ReadOnlyHint || *a.DestructiveHint || !a.IdempotentHint || *a.OpenWorldHint {
		t.Errorf("no effects: %+v", a)
	}
}

// TestCustomCode: a `custom` error is named by its message's OS reason.
func TestCustomCode(t *testing.T) {
	for msg, want := range map[string]string{
		"ls: nope: no such file or directory": "not_found",
		"cat: /root/x: permission denied":     "permission_denied",
		"/tmp/a: already exists":              "already_exists",
		"mkdir: a: file exists":               "already_exists",
		"rmdir: d: directory not empty":       "directory_not_empty",
		"open: no opener available: xdg-open": "failed",
	} {
		if got := customCode(msg); got != want {
			t.Errorf("customCode(%q) = %s, want %s", msg, got, want)
		}
	}
}
