package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// stopSignals is the process's one registration with os/signal: the
// signals that cancel what shoal is running. Every registration and
// unregistration is a hand-off with the runtime's signal thread, and each
// NotifyContext a goroutine of its own, so main makes one watcher and
// nothing is unregistered before the process exits (docs/performance.md,
// "Cold start: the seventh round").
//
// Nothing is registered when main makes it. The REPL, a remote run and a
// subcommand register at once (now); a standalone script takes SIGINT and
// SIGTERM over only when it has something to clean up (takeOver, through
// the host's hook and the grace timer of scriptSignals), so that `shoal -c
// 1` never starts the runtime's signal thread (docs/performance.md, "Cold
// start: the twenty-second round").
type stopSignals struct {
	ch     chan os.Signal
	ctx    context.Context
	cancel context.CancelCauseFunc
	watch  sync.Once // the goroutine that turns a signal into a cancel

	// The script's takeover: made once (script), taken set after it
	// has returned, so one atomic load tells a caller there is nothing
	// left to do.
	script sync.Once
	taken  atomic.Bool
}

// processStops is main's watcher; nil when run is called by a test, which
// then gets signal.NotifyContext's own.
var processStops *stopSignals

// watchStops returns a context cancelled, with "<signal> signal
// received" as its cause as signal.NotifyContext words it, when one of
// the signals later registered with w arrives. It registers none.
func watchStops(parent context.Context) (context.Context, *stopSignals) {
	ctx, cancel := context.WithCancelCause(parent)
	return ctx, &stopSignals{ch: make(chan os.Signal, 1), ctx: ctx, cancel: cancel}
}

// now diverts sigs to w from now on: their default action (the process
// dies of the signal) is replaced by cancelling w's context.
func (w *stopSignals) now(sigs ...os.Signal) {
	signal.Notify(w.ch, sigs...)
	w.watch.Do(func() {
		go func() {
			select {
			case s := <-w.ch:
				w.cancel(signalCause(s.String() + " signal received"))
			case <-w.ctx.Done():
			}
		}()
	})
}

// takeOver is a standalone script's registration of SIGINT and SIGTERM,
// made once, whoever calls first: the host before it starts a process or
// changes the file system or a terminal (host.WithBeforeLasting), or the
// grace timer. Until it returns a signal kills shoal (130 or 143 as a
// shell reports it), which loses nothing: no child exists yet and nothing
// outside the process was begun. After it, a signal cancels the script:
// a `cancelled` diagnostic, exit 1, its processes ended. Once made it
// costs one atomic load.
func (w *stopSignals) takeOver() {
	if w.taken.Load() {
		return
	}
	w.script.Do(func() {
		w.now(syscall.SIGTERM, os.Interrupt)
		w.taken.Store(true)
	})
}

// signalGrace is SignalGrace, except in a build for the tests that
// lengthens it (signals_nograce.go).
var signalGrace = SignalGrace

// signalCause is the cause of a context a signal cancelled.
type signalCause string

func (c signalCause) Error() string { return string(c) }

// stopsNow registers SIGTERM, and SIGINT too when interrupt is set, with
// main's watcher at once (the REPL, a remote run and the subcommands
// register as soon as run knows it runs one). With no watcher (a test
// calling run) a SIGINT is caught by a context of its own, released by
// the returned function.
func stopsNow(ctx context.Context, interrupt bool) (context.Context, func()) {
	if processStops != nil {
		if interrupt {
			processStops.now(syscall.SIGTERM, os.Interrupt)
		} else {
			processStops.now(syscall.SIGTERM)
		}
		return ctx, func() {}
	}
	if interrupt {
		return signal.NotifyContext(ctx, os.Interrupt)
	}
	return ctx, func() {}
}

// scriptSignals prepares a standalone script's late takeover of SIGINT
// and SIGTERM: it returns the hook the script's host calls before
// anything that lasts outside the process (nil: none to call), and arms
// the grace timer (SignalGrace), released by the returned function; a
// script that ends sooner never registers. With no watcher (a test
// calling run) SIGINT is caught at once by a context of its own, as
// before.
func scriptSignals(ctx context.Context) (context.Context, func(), func()) {
	if w := processStops; w != nil {
		t := time.AfterFunc(signalGrace, w.takeOver)
		return ctx, w.takeOver, func() { t.Stop() }
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	return ctx, nil, stop
}
