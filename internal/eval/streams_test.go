package eval

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shoalgo/shoal/internal/host"
	"github.com/shoalgo/shoal/internal/value"
)

func TestStreamsInLanguage(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"for over stream", "var s = 0\nfor x in [1, 2, 3].stream() { s += x }\ns", "6"},
		{"for break", "var s = []\nfor x in (1..100).stream() { if x > 2 { break }\ns = s + [x] }\ns", "[1, 2]"},
		{"fallthrough sum", "[1, 2, 3].stream().map(x => x * 2).sum()", "12"},
		{"fallthrough len", "(1..=4).stream().len()", "4"},
		{"take_until signal", "[1, 2].stream().take_until([0].stream()).collect()", "[]"},
		{"merge live", "channel(\"m\").events().merge([9].stream()).take(1).collect()", "[9]"},
		{"render", "[1, 2].stream().render()", "null"},
		{"each", "var n = 0\n[1, 2].stream().each(x => { n += x })\nn", "3"},
		{"render stream", "[1].stream()", "<stream list>"},
		{"unknown method keeps the stream", "let s = [1].stream()\ntry { s.nope() } catch e { e.code }\ns.collect()", "[1]"},
		{"identity", "let s = [1].stream()\n[s == s, s == [1].stream()]", "[true, false]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			if got := s.inline(tc.src); got != tc.want {
				t.Errorf("%q = %s, want %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct{ src, code, contains string }{
		{"let s = [1].stream()\ns.collect()\ns.collect()", "stream_consumed", "tee"},
		{`channel("u").events().collect()`, "stream_unbounded", "take"},
		{`channel("u").events().sum()`, "stream_unbounded", ""},
		{"[1].stream().feed(cat)", "type_error", "collect"},
		{`[1].stream().into(5)`, "type_error", "channel"},
		{`channel("t").take(timeout: 5ms)`, "timeout", ""},
		{"[1].stream().nope()", "field_missing", "stream"},
	}
	for _, tc := range tests {
		s := newSession(t)
		_, err := s.eval(tc.src)
		var e *value.Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Errorf("%q: err = %v, want %s", tc.src, err, tc.code)
			continue
		}
		if tc.contains != "" && !strings.Contains(e.Msg+" "+e.Hint, tc.contains) {
			t.Errorf("%q: %q / %q does not mention %q", tc.src, e.Msg, e.Hint, tc.contains)
		}
	}
}

func TestStreamSaveAppends(t *testing.T) {
	s := newSession(t)
	got := s.inline(`["a", {b: 1}].stream().save("log.txt")` + "\n" + `[2].stream().append("log.txt")`)
	if got != `"/work/log.txt"` && got != "/work/log.txt" {
		t.Errorf("save returned %s", got)
	}
	if data := string(s.h.files["/work/log.txt"]); data != "a\n{\"b\":1}\n2\n" {
		t.Errorf("file = %q", data)
	}
}

func TestStreamSaveAsksTheGate(t *testing.T) {
	dir := t.TempDir()
	in, err := New(Options{Registry: testRegistry, Host: host.NewOS(host.DenyAll), Dir: dir, Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = in.Eval(context.Background(), `["x"].stream().save("out.txt")`)
	var e *value.Error
	if !errors.As(err, &e) || e.Code != "denied" {
		t.Fatalf("save under DenyAll = %v, want denied", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
		t.Error("denied save created the file")
	}
}

func TestChannels(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"latest", `channel("a").emit(1)` + "\n" + `channel("a").emit(2)` + "\n" + `channel("a").latest()`, "2"},
		{"latest empty", `channel("none").latest()`, "null"},
		{"events since", `for i in 0..3 { channel("c").emit(i) }` + "\n" + `channel("c").events(since: 1).map(e => e.payload).take(1).collect()`, "[2]"},
		{"events positional since", `for i in 0..3 { channel("c").emit(i) }` + "\n" + `channel("c").events(0).take(2).map(e => e.seq).collect()`, "[1, 2]"},
		{"record shape", `channel("r").emit("x")` + "\n" + `channel("r").events().take(1).first().keys()`, `["channel", "seq", "ts", "payload"]`},
		{"into", `[1, 2].stream().into(channel("m"))` + "\n" + `channel("m").latest()`, "2"},
		{"handle is a record", `channel("h")`, `{channel: "h"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			if got := s.inline(tc.src); got != tc.want {
				t.Errorf("%q = %s, want %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestChannelBounds(t *testing.T) {
	s := newSession(t)
	bus := s.in.Channels()
	now := time.Now()
	sub, err := bus.subscribe("b", true, -1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < ChannelRing+10; i++ {
		bus.Inject("b", value.Int(i), now)
	}
	bus.mu.Lock()
	ringLen, queued, dropped := len(bus.chans["b"].ring), len(sub.queue), sub.dropped
	bus.mu.Unlock()
	if ringLen != ChannelRing || queued != ChannelQueue || dropped != int64(ChannelRing+10-ChannelQueue) {
		t.Fatalf("ring %d, queue %d, dropped %d", ringLen, queued, dropped)
	}
	th := &thread{in: s.in, ctx: context.Background(), host: s.h}
	for i := 0; i < ChannelQueue; i++ {
		if _, _, _, err := sub.next(th, 0); err != nil {
			t.Fatal(err)
		}
	}
	v, ok, _, err := sub.next(th, 0)
	if err != nil || !ok || value.Inline(v) != "{dropped: "+itoa(ChannelRing+10-ChannelQueue)+"}" {
		t.Errorf("after the queue: %v %v %v", value.Inline(v), ok, err)
	}
	sub.close()
	bus.mu.Lock()
	n := len(bus.chans["b"].subs)
	bus.mu.Unlock()
	if n != 0 {
		t.Errorf("%d subscribers after close", n)
	}
	// Subscribers per channel are bounded: the oldest is closed.
	for i := 0; i < ChannelSubs+3; i++ {
		if _, err := bus.subscribe("many", false, 0); err != nil {
			t.Fatal(err)
		}
	}
	bus.mu.Lock()
	n = len(bus.chans["many"].subs)
	bus.mu.Unlock()
	if n != ChannelSubs {
		t.Errorf("%d subscribers, want %d", n, ChannelSubs)
	}
}

func TestChannelForwarderOnlyUser(t *testing.T) {
	s := newSession(t)
	var got []string
	s.in.Channels().SetForwarder(func(ch string, v value.Value) error { got = append(got, ch+"="+value.Inline(v)); return nil })
	s.inline(`channel("user.x").emit(1)` + "\n" + `channel("journal").emit(2)` + "\n" + `[3].stream().into(channel("user.y"))`)
	s.in.Channels().Inject("user.z", value.Int(4), time.Now())
	if strings.Join(got, ",") != "user.x=1,user.y=3" {
		t.Errorf("forwarded %v", got)
	}
	if s.inline(`channel("user.z").latest()`) != "4" {
		t.Error("injected event not visible to the language")
	}
}

// TestLiveStreamsCancel checks that blocked live streams end with the
// evaluation's context and leave no goroutines behind.
func TestLiveStreamsCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, src := range []string{
		`channel("quiet").events().take(1).collect()`,
		`channel("quiet").take()`,
		`for x in channel("quiet").events() { x }`,
		`channel("p").events().merge(channel("q").events()).take(1).collect()`,
	} {
		s := newSession(t)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		start := time.Now()
		_, err := s.in.Eval(ctx, src)
		cancel()
		var e *value.Error
		if !errors.As(err, &e) || e.Code != "cancelled" {
			t.Errorf("%q: err = %v, want cancelled", src, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%q took %v to notice cancellation", src, d)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after cancelling, %d before", n, before)
	}
}
