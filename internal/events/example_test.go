package events_test

import (
	"encoding/json"
	"fmt"

	"github.com/shoalgo/shoal/internal/events"
)

// A connection subscribes with a cursor, a client publishes on a user
// channel, and an observer sees the publish (the language bridge).
func Example() {
	bus := events.New(events.WithClock(func() int64 { return 1750000000000000000 }))
	bus.OnPublish(func(sc events.Scope, ev events.Event) {
		if events.CanClientPublish(ev.Channel) {
			fmt.Printf("bridge to %s/%s: %s\n", sc.Principal, sc.Session, ev.Payload)
		}
	})
	me := events.Scope{Principal: "alice", Session: "default"}
	bus.Publish(me, "user.build", json.RawMessage(`{"phase":"test"}`))

	got := make(chan events.Event, 4)
	conn := bus.NewSubscriber(func(ev events.Event) error { got <- ev; return nil })
	defer conn.Close()
	since := uint64(0)
	if _, err := conn.Subscribe(me, "user.build", &since); err != nil {
		fmt.Println(err)
		return
	}
	bus.Publish(me, "user.build", json.RawMessage(`{"phase":"done"}`))
	for range 2 {
		frame, _ := json.Marshal(<-got)
		fmt.Println(string(frame))
	}
	fmt.Println(len(bus.Read(me, "user.build", 1, 0)), len(bus.Read(me, "user.nothing", 0, 0)))
	// Output:
	// bridge to alice/default: {"phase":"test"}
	// bridge to alice/default: {"phase":"done"}
	// {"channel":"user.build","seq":1,"ts":1750000000000000000,"payload":{"phase":"test"}}
	// {"channel":"user.build","seq":2,"ts":1750000000000000000,"payload":{"phase":"done"}}
	// 1 0
}
