// Command ankusa-store is the operator CLI for the RocksDB store of an Ankusa node.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/ankusa/ankusa-store/cmd"
	"github.com/ankusa/ankusa-store/internal/scratch"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
)

// Set by the release build's ldflags.
var (
	version = "dev"
	commit  = "none"
)

// atExit runs just before the process exits with its code (os.Exit runs no defers). Only a
// build with the tag pgoprofile sets it: it stops the CPU profile that bench/pgo_profile.sh
// takes of a migration, the profile the release build is optimized with (default.pgo).
var atExit = func() {}

func main() {
	// A crash (a Go panic, or an abort in RocksDB such as a failed assertion) must not exit
	// 2, the code for "usage error, nothing written", which is what the Go runtime exits
	// with after a panic or a fatal signal: with "crash" it prints every goroutine's stack
	// and raises SIGABRT, and the process ends as killed by it (134 to a shell), which no
	// answer uses (internal/faults TestPanicExitStatus; the texts: internal/exitcode).
	// The one exit 2 no code here can change: the Go runtime failing to start ("fatal error:",
	// e.g. under a low ulimit -v) exits 2 before main runs (internal/exitcode RuntimeStartText).
	debug.SetTraceback("crash")
	// The first SIGINT, SIGTERM or SIGHUP (a closed terminal or ssh session) cancels the
	// context so long commands stop after their current step and remove their scratch
	// directories, exit 130 (one that writes nothing and has not stopped 5 s later, blocked
	// where it never looks, is ended as interrupted all the same: cmd/interrupt_stuck.go); a
	// second one falls back to the default action and kills the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		<-ctx.Done()
		stop()
	}()
	// What runs that were killed (kill -9, the OOM killer) left in the temporary directory:
	// extracted archives, secondary instances' directories (internal/scratch).
	scratch.SweepTemp()
	code := cmd.Execute(ctx, iostreams.System(), cmd.BuildInfo{Version: version, Commit: commit}, os.Args[1:])
	stop()
	atExit()
	os.Exit(code)
}
