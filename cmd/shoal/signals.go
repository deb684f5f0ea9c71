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
//
// The registrations run on goroutines of their own while main goes on
// (reading the configuration, building the registry, parsing), and
// settle waits for them: every path that acts on what it was given calls
// it first, so a script's first statement, a subcommand, the REPL and a
// remote run all start with the signals registered, as before. The first
// signal.Notify of a process starts the runtime's signal thread and
// template thread and makes two hand-offs with it per signal; done from
// main, each hand-off put main's thread to sleep and woke another, which
// on this VM cost about a tenth of a `shoal -c 1` start
// (docs/performance.md, "Cold start: the twentieth round").
type stopSignals struct {
	ch     chan os.Signal
	cancel context.CancelCauseFunc
	// registered is closed once the last registration asked for is made;
	// they are made one after another (at once, two would contend for
	// os/signal's lock and the runtime's signal thread).
	registered chan struct{}
}

// processStops is main's watcher; nil when run is called by a test, which
// then gets signal.NotifyContext's own.
var processStops *stopSignals

// watchStops returns a context cancelled, with "<signal> signal
// received" as its cause as signal.NotifyContext words it, when one of
// sigs arrives; more signals join through add. The signals are
// registered once settle has returned.
func watchStops(parent context.Context, sigs ...os.Signal) (context.Context, *stopSignals) {
	ctx, cancel := context.WithCancelCause(parent)
	registered := make(chan struct{})
	w := &stopSignals{ch: make(chan os.Signal, 1), cancel: cancel, registered: registered}
	go func() {
		signal.Notify(w.ch, sigs...)
		close(registered)
		select {
		case s := <-w.ch:
			cancel(signalCause(s.String() + " signal received"))
		case <-ctx.Done():
		}
	}()
	return ctx, w
}

// add diverts sig to w too, once settle has returned. add and settle are
// called by the goroutine that called watchStops.
func (w *stopSignals) add(sig os.Signal) {
	prev, next := w.registered, make(chan struct{})
	w.registered = next
	go func() {
		<-prev
		signal.Notify(w.ch, sig)
		close(next)
	}()
}

// settle returns once every signal given to watchStops and add is
// registered.
func (w *stopSignals) settle() { <-w.registered }

// settleStops is settle of main's watcher (nothing when run is called by
// a test).
func settleStops() {
	if processStops != nil {
		processStops.settle()
	}
}

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
