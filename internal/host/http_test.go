package host

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestConnectTarget(t *testing.T) {
	for raw, want := range map[string]string{
		"http://Example.test/x":    "example.test:80",
		"https://example.test":     "example.test:443",
		"http://127.0.0.1:8080/":   "127.0.0.1:8080",
		"https://[::1]:9/":         "[::1]:9",
		"http://user:pw@h.test:1/": "h.test:1",
		"ftp://h.test/":            "",
		"/local/path":              "",
		"http:///nohost":           "",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ConnectTarget(u)
		if want == "" {
			if err == nil {
				t.Errorf("ConnectTarget(%s) = %q, want an error", raw, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ConnectTarget(%s) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

// TestHTTPBounds: a body past MaxHTTPBody is ErrTooLarge; a refusal asks
// before any connection is made; redirects stop after MaxHTTPRedirects;
// repeated response headers are joined under a lower-case name.
func TestHTTPBounds(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch r.URL.Path {
		case "/big":
			chunk := make([]byte, 1<<20)
			for i := 0; i <= MaxHTTPBody>>20; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/multi":
			w.Header().Add("X-Many", "a")
			w.Header().Add("X-Many", "b")
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	h := newOS(AllowAll)
	if _, err := h.HTTP(ctx, &HTTPRequest{Method: "GET", URL: srv.URL + "/big"}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a body past the bound: %v, want ErrTooLarge", err)
	}
	if _, err := h.HTTP(ctx, &HTTPRequest{Method: "GET", URL: srv.URL + "/loop"}); !errors.Is(err, ErrNet) || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("a redirect loop: %v, want ErrNet naming redirects", err)
	}
	resp, err := h.HTTP(ctx, &HTTPRequest{Method: "GET", URL: srv.URL + "/multi"})
	if err != nil {
		t.Fatal(err)
	}
	joined := ""
	for _, kv := range resp.Header {
		if kv[0] == "x-many" {
			joined = kv[1]
		}
	}
	if joined != "a, b" || string(resp.Body) != "ok" || resp.Status != 200 {
		t.Errorf("multi: %+v", resp)
	}
	before := hits.Load()
	denied := newOS(DenyAll)
	if _, err := denied.HTTP(ctx, &HTTPRequest{Method: "GET", URL: srv.URL + "/multi"}); !errors.Is(err, ErrDenied) {
		t.Errorf("DenyAll: %v", err)
	}
	if hits.Load() != before {
		t.Error("a refused request reached the server")
	}
}
