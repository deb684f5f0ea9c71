package kernel_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/kernel"
	"github.com/shoalgo/shoal/internal/policy"
	"github.com/shoalgo/shoal/proto"
)

// secretMaterial is the stored text of the secret "tok"; it must appear in
// no answer, journal row, value blob or event the kernel sends.
const secretMaterial = "s3cr3t-e2e-material"

// secretPolicy: agent:net may read the secret tok (not other) and connect
// to the loopback server's HOSTPORT only, without approval.
const secretPolicy = `
[principal."agent:net"]
secret_use = ["tok"]
net_connect = ["HOSTPORT"]
auto_apply = "in-grant"
opaque = "allow"
journal_read = true
`

// lockedBuffer is a log sink safe for the kernel's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestE2ESecretRedacted runs secrets and HTTP through a real kernel: the
// owner's and an agent's exec answers (value and render), the transcript,
// journal.query rows and the value blobs they name carry the secret's
// name and never its material, nor do the kernel's debug logs, while the loopback server does receive it
// in the header it was injected into; the agent's policy refuses another
// secret and another host before anything runs.
func TestE2ESecretRedacted(t *testing.T) {
	var (
		mu      sync.Mutex
		gotAuth []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotAuth = append(gotAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	hostport := strings.TrimPrefix(srv.URL, "http://")

	sock, dir, store := e2eDirs(t)
	base := filepath.Dir(dir)
	secrets := filepath.Join(base, "secrets")
	if err := os.Mkdir(secrets, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secrets, "tok"), []byte(secretMaterial+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secrets, "other"), []byte("other-material"), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Parse([]byte(strings.ReplaceAll(secretPolicy, "HOSTPORT", hostport)), base)
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	k := serveConfigE2E(t, sock, dir, store, kernel.Config{Version: "e2e", TokenStore: store, Dir: dir,
		Env:    []string{"HOME=" + base, "PATH=/usr/bin:/bin", "SHOAL_SECRET_DIR=" + secrets},
		Policy: pol, StateDir: filepath.Join(base, "state"),
		Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ctx := testCtx(t)
	owner := k.attached(t, "main", "")
	agent := k.attached(t, "a", k.token(t, "agent:net"))

	var answers []string
	exec := func(c *client.Client, src string) client.ExecResult {
		t.Helper()
		res, err := c.Exec(ctx, client.ExecParams{Src: src})
		if err != nil {
			t.Fatalf("exec %s: %v", src, err)
		}
		b, _ := json.Marshal(res)
		answers = append(answers, string(b))
		return *res
	}
	res := exec(owner, `let tok = secret.get("tok"); tok`)
	if string(res.Value) != `{"$":"secret","name":"tok"}` || res.Render != "secret(tok)" {
		t.Errorf("the secret's answer = %s, render %q", res.Value, res.Render)
	}
	res = exec(owner, `{auth: tok, list: [tok], n: 1}`)
	if !strings.Contains(string(res.Value), `{"$":"secret","name":"tok"}`) {
		t.Errorf("nested secret = %s", res.Value)
	}
	exec(owner, `echo (tok)`)
	exec(owner, `tok.json()`)
	res = exec(owner, `http.get("`+srv.URL+`/", headers: {Authorization: tok}).json`)
	if string(res.Value) != `{"$":"record","v":{"ok":{"$":"bool","v":true}}}` {
		t.Errorf("http.get answer = %s", res.Value)
	}
	res = exec(agent, `let t = secret.get("tok"); http.post("`+srv.URL+`/x", "body", headers: {Authorization: t}).status`)
	if string(res.Value) != `{"$":"int","v":200}` {
		t.Errorf("agent's http.post = %s", res.Value)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(gotAuth) != 2 || gotAuth[0] != secretMaterial || gotAuth[1] != secretMaterial {
		t.Errorf("the server received Authorization %q; want the material twice", gotAuth)
	}
	for _, src := range []string{`"x" + tok`, `"{tok}"`, `tok.feed(cat)`} {
		err := owner.Call(ctx, "exec", map[string]any{"src": src}, nil)
		wantCode(t, src, err, proto.CodeRaised)
		answers = append(answers, err.Error())
	}
	// The agent's policy refuses another secret and another host before
	// anything runs.
	for _, src := range []string{`secret.get("other")`, `http.get("http://127.0.0.2:9/")`} {
		err := agent.Call(ctx, "exec", map[string]any{"src": src}, nil)
		wantCode(t, src, err, proto.CodeLeashDenied)
		answers = append(answers, err.Error())
	}

	// A URL computed at run time passes the plan (opaque = "allow") and is
	// refused by the session's gate when the request is made: a typed
	// denied error, and the server never hears of it.
	err = agent.Call(ctx, "exec", map[string]any{"src": `let u = "http://127.0.0.2:9/"; try { http.get(u) } catch e { e.code }`}, &res)
	if err != nil || string(res.Value) != `{"$":"str","v":"denied"}` {
		t.Errorf("runtime-refused http.get = %s, %v; want \"denied\"", res.Value, err)
	}

	// explain names the precise effects: the secret by name and the
	// server's host:port, nothing opaque.
	var plan struct {
		Effects []struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"effects"`
		Opaque bool `json:"opaque"`
	}
	src := `let t = secret.get("tok"); http.post("` + srv.URL + `/x", "b", headers: {Authorization: t})`
	if err := agent.Call(ctx, "explain", map[string]any{"src": src}, &plan); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(plan); plan.Opaque || string(b) != `{"effects":[{"kind":"secret_use","name":"tok"},{"kind":"net_connect","name":"`+hostport+`"}],"opaque":false}` {
		t.Errorf("explain %s = %s", src, b)
	}

	rows := queryJournal(t, owner, map[string]any{})
	if len(rows) < 8 {
		t.Fatalf("journal has %d rows", len(rows))
	}
	var blobs []string
	for _, r := range rows {
		answers = append(answers, r.String())
		if h := r.output("value"); h != "" {
			b, err := getBlob(owner, t, map[string]any{"hash": h})
			if err != nil {
				t.Fatalf("blob.get %s: %v", h, err)
			}
			blobs = append(blobs, string(b.Value))
		}
	}
	sawName := false
	for _, b := range blobs {
		if strings.Contains(b, `{"$":"secret","name":"tok"}`) {
			sawName = true
		}
	}
	if !sawName {
		t.Errorf("no value blob names the secret: %q", blobs)
	}
	var transcript json.RawMessage
	if err := owner.Call(ctx, "session.transcript", map[string]any{}, &transcript); err == nil {
		answers = append(answers, string(transcript))
	}
	k.stop(t) // its last log lines too
	answers = append(answers, logs.String())
	for _, text := range append(answers, blobs...) {
		if strings.Contains(text, secretMaterial) || strings.Contains(text, "other-material") {
			t.Fatalf("the kernel sent a secret's material: %s", text)
		}
	}
}
