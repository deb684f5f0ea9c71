package kernel

import (
	"reflect"
	"slices"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/leash"
)

// TestHandEncodersKnowEveryField: appendEffectsJSON and appendUndoJSON
// write leash.Effect, eval.UndoRecord and eval.UndoStep field by field. The
// differential tests compare them with encoding/json only over the fields
// they set, so a field added to one of these types would be dropped from
// every journal row without failing them: this test fails instead, and
// says which encoder to extend (and which differential test to feed).
func TestHandEncodersKnowEveryField(t *testing.T) {
	for _, c := range []struct {
		typ     reflect.Type
		encoder string
		fields  []string
	}{
		{reflect.TypeFor[leash.Effect](), "appendEffectsJSON", []string{"Kind", "Path", "Program", "Argv", "Name", "Dynamic"}},
		{reflect.TypeFor[eval.UndoRecord](), "appendUndoJSON", []string{"Steps", "Lost"}},
		{reflect.TypeFor[eval.UndoStep](), "appendUndoJSON", []string{"Op", "Path", "From", "Dir", "Size", "ModNS"}},
	} {
		var got []string
		for f := range c.typ.Fields() {
			if f.IsExported() && f.Tag.Get("json") != "-" {
				got = append(got, f.Name)
			}
		}
		if !slices.Equal(got, c.fields) {
			t.Errorf("%s has fields %v; %s renders %v: extend it (and its differential test) for the new field", c.typ, got, c.encoder, c.fields)
		}
	}
}
