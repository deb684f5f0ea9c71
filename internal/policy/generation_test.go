package policy

import "testing"

// The same document read with the same home is one generation; a changed
// document, another home or the default policy is another.
func TestGeneration(t *testing.T) {
	doc := []byte("[principal.\"agent:a\"]\nfs.read = [\"~/x\"]\n")
	parse := func(data []byte, home string) string {
		t.Helper()
		p, err := Parse(data, home)
		if err != nil {
			t.Fatal(err)
		}
		return p.Generation()
	}
	a := parse(doc, "/h")
	if len(a) != 64 || a != parse(doc, "/h") {
		t.Fatalf("generation %q not stable", a)
	}
	seen := map[string]string{a: "doc"}
	for name, g := range map[string]string{
		"changed": parse(append(doc, "approve = true\n"...), "/h"),
		"home":    parse(doc, "/other"),
		"default": Default("uid:1").Generation(),
	} {
		if prev, dup := seen[g]; dup {
			t.Errorf("%s has the generation of %s", name, prev)
		}
		seen[g] = name
	}
	plain := []byte("[principal.\"agent:a\"]\nfs.read = [\"/x\"]\n")
	if parse(plain, "/h") != parse(plain, "/other") {
		t.Error("the home directory changes the generation of a policy without ~")
	}
	if Default("uid:1").Generation() != Default("uid:2").Generation() {
		t.Error("the default policy's generation depends on the owner")
	}
}

// TestDefaultGenerationIsTheDigest: the constant is the generation of the
// default policy's text, as generationOf computes it.
func TestDefaultGenerationIsTheDigest(t *testing.T) {
	if got := generationOf([]byte("shoal default policy"), ""); got != defaultGeneration {
		t.Fatalf("generationOf(default) = %s; defaultGeneration = %s", got, defaultGeneration)
	}
}
