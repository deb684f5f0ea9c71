package events

import (
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
)

func BenchmarkPublish(b *testing.B) {
	payload := json.RawMessage(`{"phase":"test","passed":1310}`)
	for _, n := range []int{0, 1, 100} {
		b.Run(strconv.Itoa(n)+"subs", func(b *testing.B) {
			bus := New()
			c := bus.NewSubscriber(func(Event) error { return nil })
			defer c.Close()
			for range n {
				if _, err := bus.Subscribe(alice, "user.bench", nil, c.sink); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				bus.Publish(alice, "user.bench", payload)
			}
		})
	}
}

func BenchmarkPublishParallelScopes(b *testing.B) {
	bus := New()
	payload := json.RawMessage(`{}`)
	b.ReportAllocs()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		sc := Scope{"p", strconv.FormatInt(next.Add(1), 10)}
		for pb.Next() {
			bus.Publish(sc, "render", payload)
		}
	})
}

func BenchmarkRead(b *testing.B) {
	bus := New()
	for i := range RingSize {
		bus.Publish(alice, "user.r", num(i))
	}
	b.ReportAllocs()
	for b.Loop() {
		bus.Read(alice, "user.r", RingSize-100, 100)
	}
}
