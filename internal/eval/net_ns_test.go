package eval

import (
	"context"
	"encoding/json"
	"github.com/shoalgo/shoal/internal/evaltest"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

// loopbackServer answers the paths testdata/http.txt asks for.
func loopbackServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/text", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })
	mux.HandleFunc("/json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, ` {"items": [1, 2]}`+"\n")
	})
	mux.HandleFunc("/status/", func(w http.ResponseWriter, r *http.Request) {
		code := map[string]int{"/status/404": 404, "/status/500": 500}[r.URL.Path]
		w.WriteHeader(code)
		io.WriteString(w, "missing")
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		json.NewEncoder(w).Encode(map[string]string{
			"method": r.Method, "body": string(body), "accept": r.Header.Get("Accept"), "x_n": r.Header.Get("X-N"),
			"authorization": r.Header.Get("Authorization"), "content_type": r.Header.Get("Content-Type"),
		})
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/text", http.StatusFound) })
	mux.HandleFunc("/redirect-out", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:9/x", http.StatusFound)
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte{0xff, 0xfe, 0x00}) })
	mux.HandleFunc("/hangup", func(w http.ResponseWriter, _ *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

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

// netSession is a session whose gate allows net_connect to hostport and
// secret_use of tok, open, bin and nope, and nothing else; every op it was asked
// is recorded in asked.
func netSession(t *testing.T, hostport, store string, asked *[]host.Op) *Interp {
	gate := host.AuthorizerFunc(func(_ context.Context, op host.Op) error {
		*asked = append(*asked, op)
		switch {
		case op.Effect == host.NetConnect && op.Target == hostport,
			op.Effect == host.SecretUse && (op.Target == "tok" || op.Target == "open" || op.Target == "bin" || op.Target == "nope"),
			op.Effect == host.ProcSpawn, op.Effect == host.EnvRead, op.Effect == host.FSRead:
			return nil
		}
		return host.Denied(op, "test gate")
	})
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(gate, host.WithSecretDir(store)), Dir: t.TempDir(),
		Env: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestHTTPTranscript runs testdata/http.txt against a loopback server.
func TestHTTPTranscript(t *testing.T) {
	srv := loopbackServer(t)
	hostport := strings.TrimPrefix(srv.URL, "http://")
	var asked []host.Op
	in := netSession(t, hostport, secretStore(t), &asked)
	vars := strings.NewReplacer("$URL", srv.URL, "$HOSTPORT", hostport)
	if n := evaltest.RunFile(t, in, "testdata/http.txt", nil, vars); n < 30 {
		t.Fatalf("only %d cases read", n)
	}
	connects := 0
	for _, op := range asked {
		if op.Effect == host.NetConnect {
			connects++
		}
	}
	if connects < 20 {
		t.Fatalf("the gate was asked net_connect %d times; every request must ask it", connects)
	}
}

// TestSecretTranscript runs testdata/secret.txt.
func TestSecretTranscript(t *testing.T) {
	var asked []host.Op
	in := netSession(t, "", secretStore(t), &asked)
	if n := evaltest.RunFile(t, in, "testdata/secret.txt", nil, nil); n < 18 {
		t.Fatalf("only %d cases read", n)
	}
}

// TestSecretNeverRendered: the material of a secret reaches no rendering,
// no JSON and no wire value, alone or nested, and no error raised about it.
func TestSecretNeverRendered(t *testing.T) {
	var asked []host.Op
	in := netSession(t, "", secretStore(t), &asked)
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

// TestHTTPCancelled: a cancelled evaluation stops a request in flight with
// cancelled, not net_error.
func TestHTTPCancelled(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	var asked []host.Op
	in := netSession(t, strings.TrimPrefix(srv.URL, "http://"), t.TempDir(), &asked)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err := in.Eval(ctx, `http.get("`+srv.URL+`/")`)
	e, ok := err.(*value.Error)
	if !ok || e.Code != "cancelled" {
		t.Fatalf("err = %v, want cancelled", err)
	}
}

// TestHostNamespacesListed: completion and introspection see http and
// secret with their members, as programs do.
func TestHostNamespacesListed(t *testing.T) {
	names := strings.Join(testRegistry.NamespaceNames(), " ")
	for _, n := range []string{"http", "secret", "os", "config", "json"} {
		if !strings.Contains(" "+names+" ", " "+n+" ") {
			t.Errorf("testRegistry.NamespaceNames() = %s, lacks %s", names, n)
		}
	}
	if got := strings.Join(testRegistry.NamespaceMembers("http"), " "); got != "delete get post put" {
		t.Errorf("http members = %q", got)
	}
	if got := strings.Join(testRegistry.NamespaceMembers("secret"), " "); got != "get" {
		t.Errorf("secret members = %q", got)
	}
}
