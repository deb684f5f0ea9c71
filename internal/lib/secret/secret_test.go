package secret_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/eval"
	"github.com/shoalgo/shoal/internal/evaltest"
	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/stdlib"
	"github.com/shoalgo/shoal/internal/value"
)

// secretStore makes a store directory: tok (600), open (644), bin (600,
// not UTF-8).
func secretStore(t *testing.T) string {
	dir := t.TempDir()
	for name, f := range map[string]struct {
		data string
		mode os.FileMode
	}{"tok": {"s3cr3t\n", 0o600}, "open": {"x", 0o644}, "bin": {"\xff\xfe", 0o600}} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(f.data), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// session is a session on the standard registry whose gate allows
// secret_use of tok, open, bin and nope (and spawns, environment and file
// reads), and no network; every op it was asked is recorded in asked.
func session(t *testing.T, store string, asked *[]host.Op) *eval.Interp {
	gate := host.AuthorizerFunc(func(_ context.Context, op host.Op) error {
		*asked = append(*asked, op)
		switch {
		case op.Effect == host.SecretUse && (op.Target == "tok" || op.Target == "open" || op.Target == "bin" || op.Target == "nope"),
			op.Effect == host.ProcSpawn, op.Effect == host.EnvRead, op.Effect == host.FSRead:
			return nil
		}
		return host.Denied(op, "test gate")
	})
	in, err := eval.New(eval.Options{Registry: stdlib.Registry(), Host: host.NewOS(gate, host.WithSecretDir(store)), Dir: t.TempDir(),
		Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestSecretTranscript runs testdata/secret.txt.
func TestSecretTranscript(t *testing.T) {
	var asked []host.Op
	in := session(t, secretStore(t), &asked)
	if n := evaltest.RunFile(t, in, "testdata/secret.txt", nil, nil); n < 18 {
		t.Fatalf("only %d cases read", n)
	}
}

// TestSecretNeverRendered: the material of a secret reaches no rendering,
// no JSON and no wire value, alone or nested, and no error raised about it.
func TestSecretNeverRendered(t *testing.T) {
	var asked []host.Op
	in := session(t, secretStore(t), &asked)
	ctx := context.Background()
	v, err := in.Eval(ctx, `let s = secret.get("tok"); {s: s, list: [s], table: [{a: s}]}`)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := value.ToWire(v)
	if err != nil {
		t.Fatal(err)
	}
	js, err := value.ToJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	jsText, _ := json.Marshal(js)
	for what, text := range map[string]string{
		"display": value.Display(v), "inline": value.Inline(v), "interp": value.Interp(v),
		"wire": string(wire), "json": string(jsText),
	} {
		if strings.Contains(text, "s3cr3t") {
			t.Errorf("%s shows the material: %s", what, text)
		}
		if !strings.Contains(text, "tok") {
			t.Errorf("%s does not name the secret: %s", what, text)
		}
	}
	for _, src := range []string{
		`let s = secret.get("tok"); "{s}"`, `cat (secret.get("tok"))`, `secret.get("tok").feed(cat)`,
		`secret.get("tok") + 1`, `secret.get("tok").nope()`, `secret.get("tok").upper()`,
		`http.get("http://127.0.0.2:9/", headers: {A: secret.get("tok")})`,
	} {
		_, err := in.Eval(ctx, src)
		if err == nil {
			t.Errorf("%s: no error", src)
			continue
		}
		if strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: the error shows the material: %v", src, err)
		}
	}
}
