package mcp

import (
	"net/http"
	"sync"
	"testing"
)

// TestHTTPBudgetAccounting: concurrent admissions never pass a bound, a
// refusal names the tighter budget, and every charge is given back.
func TestHTTPBudgetAccounting(t *testing.T) {
	r := newTokens(nil, "", "", nil)
	var toks []*tokenFacade
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		tf := &tokenFacade{id: id, ready: make(chan struct{})}
		close(tf.ready)
		r.byID[id] = tf
		toks = append(toks, tf)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var releases []func()
	refused := map[string]int{}
	for _, tf := range toks {
		for range 4 * MaxHTTPTokenRequests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rel, q := r.admit(tf, 100)
				mu.Lock()
				defer mu.Unlock()
				if q != nil {
					if q.status != http.StatusTooManyRequests {
						t.Errorf("status %d", q.status)
					}
					refused[q.budget]++
					return
				}
				releases = append(releases, rel)
			}()
		}
	}
	wg.Wait()
	if len(releases) != MaxHTTPRequests || refused["mcp_http_requests"] == 0 {
		t.Fatalf("%d admitted, refusals %v", len(releases), refused)
	}
	for _, tf := range toks {
		if tf.reqs > MaxHTTPTokenRequests {
			t.Fatalf("token %s holds %d requests", tf.id, tf.reqs)
		}
	}
	for _, rel := range releases {
		rel()
	}
	if r.reqs != 0 || r.bytes != 0 {
		t.Fatalf("left charged: %d requests, %d bytes", r.reqs, r.bytes)
	}
	// Bytes: a token's budget binds before its request count does.
	var rels []func()
	for {
		rel, q := r.admit(toks[0], MaxHTTPBody)
		if q != nil {
			if q.budget != "mcp_http_token_bytes" {
				t.Fatalf("refused %s, want mcp_http_token_bytes", q.budget)
			}
			break
		}
		rels = append(rels, rel)
	}
	if len(rels) != MaxHTTPTokenBytes/MaxHTTPBody {
		t.Fatalf("%d bodies admitted", len(rels))
	}
	for _, rel := range rels {
		rel()
	}
	// Sessions being opened count until they are done.
	var done []func()
	for {
		d, q := r.openSession(toks[1])
		if q != nil {
			if q.budget != "mcp_http_token_sessions" {
				t.Fatalf("refused %s", q.budget)
			}
			break
		}
		done = append(done, d)
	}
	if len(done) != MaxHTTPTokenSessions {
		t.Fatalf("%d sessions opening", len(done))
	}
	for _, d := range done {
		d()
	}
	if toks[1].opening != 0 {
		t.Fatalf("opening %d", toks[1].opening)
	}
}
