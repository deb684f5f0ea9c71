package http_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
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

// secretStore makes a store directory holding tok ("s3cr3t\n", 600), the
// secret testdata/http.txt sends as a header.
func secretStore(t *testing.T) string {
	dir := t.TempDir()
	for name, f := range map[string]struct {
		data string
		mode os.FileMode
	}{"tok": {"s3cr3t\n", 0o600}} {
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
func netSession(t *testing.T, hostport, store string, asked *[]host.Op) *eval.Interp {
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
	in, err := eval.New(eval.Options{Registry: stdlib.Registry(), Host: host.NewOS(gate, host.WithSecretDir(store)), Dir: t.TempDir(),
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
