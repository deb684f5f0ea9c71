//go:build linux

package hostile

import (
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/shoalgo/shoal/client"
	"github.com/shoalgo/shoal/internal/host"
)

// TestHostileHTTPBody: a loopback server answers http.get with ten times
// host.MaxHTTPBody. The caller gets too_large, the kernel reads no more
// than the bound (its RSS stays well under what the body would need), it
// stays up, and the owner's heartbeat is served throughout. The RSS bound
// is below the body the server offers (10x) but several times the body
// bound: reading and converting one bounded body peaks at about 4x it
// (ReadAll's growth, then the string), 336 MiB seen under -race.
func TestHostileHTTPBody(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for sent := 0; sent < 10*host.MaxHTTPBody; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the kernel stopped reading
			}
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })

	k := Start(t, Options{})
	hb := k.Heartbeat(t)
	c := k.Owner(t)
	src := fmt.Sprintf("http.get(%q).status", "http://"+ln.Addr().String()+"/big")
	for range 3 {
		_, err := c.Exec(Ctx(t), client.ExecParams{Src: src})
		WantLangCode(t, err, "too_large")
	}
	k.Alive(t)
	k.WantRSSUnder(t, 8*host.MaxHTTPBody)
	res, err := c.Exec(Ctx(t), client.ExecParams{Src: "20 + 22"})
	if err != nil || string(res.Value) != `{"$":"int","v":42}` && string(res.Value) != "42" {
		t.Fatalf("after the bodies: %s, %v", res.Value, err)
	}
	hb.Stop(t)
}
