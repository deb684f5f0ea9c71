package main

import (
	"context"
	"os"
	"os/signal"
)

// stopSignals is the process's one registration with os/signal: the
// signals that cancel what shoal is running. Every registration and
// unregistration is a hand-off with the runtime's signal thread, and each
// NotifyContext a goroutine of its own, so main makes one watcher, a
// script adds SIGINT to it (interruptible), and nothing is unregistered
// before the process exits (docs/performance.md, "Cold start: the seventh
// round").
type stopSignals struct {
	ch     chan os.Signal
	cancel context.CancelCauseFunc
}

// processStops is main's watcher; nil when run is called by a test, which
// then gets signal.NotifyContext's own.
var processStops *stopSignals

// watchStops returns a context cancelled, with "<signal> signal
// received" as its cause as signal.NotifyContext words it, when one of
// sigs arrives; more signals join through add.
func watchStops(parent context.Context, sigs ...os.Signal) (context.Context, *stopSignals) {
	ctx, cancel := context.WithCancelCause(parent)
	w := &stopSignals{ch: make(chan os.Signal, 1), cancel: cancel}
	signal.Notify(w.ch, sigs...)
	go func() {
		select {
		case s := <-w.ch:
			cancel(signalCause(s.String() + " signal received"))
		case <-ctx.Done():
		}
	}()
	return ctx, w
}

// add diverts sig to w too.
func (w *stopSignals) add(sig os.Signal) { signal.Notify(w.ch, sig) }

// signalCause is the cause of a context a signal cancelled.
type signalCause string

func (c signalCause) Error() string { return string(c) }

// interruptible makes SIGINT stop what runs under ctx: through main's
// watcher, whose context ctx is, or (a test calling run) a context of its
// own, released by the returned function.
func interruptible(ctx context.Context) (context.Context, func()) {
	if processStops != nil {
		processStops.add(os.Interrupt)
		return ctx, func() {}
	}
	return signal.NotifyContext(ctx, os.Interrupt)
}
