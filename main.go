// Command ankusa-store is the operator CLI for the RocksDB store of an Ankusa node.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/ankusa/ankusa-store/cmd"
)

// Set by the release build's ldflags.
var (
	version = "dev"
	commit  = "none"
)

func main() {
	// A crash (a Go panic, or an abort in RocksDB such as a failed assertion) must not exit
	// 2, the code for "usage error, nothing written", which is what the Go runtime exits
	// with after a fatal signal: with "crash" it re-raises the signal, and the process ends
	// as killed by it (128+signal to a shell: 134 for SIGABRT), which no answer uses.
	debug.SetTraceback("crash")
	// The first SIGINT/SIGTERM cancels the context so long commands stop after their current
	// step; a second one falls back to the default action and kills the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cmd.Execute(ctx, cmd.SystemStreams(), cmd.BuildInfo{Version: version, Commit: commit}, os.Args[1:])
	stop()
	os.Exit(code)
}
