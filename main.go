// Command ankusa-store is the operator CLI for the RocksDB store of an Ankusa node.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ankusa/ankusa-store/cmd"
)

// Set by the release build's ldflags.
var (
	version = "dev"
	commit  = "none"
)

func main() {
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
