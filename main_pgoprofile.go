//go:build pgoprofile

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// A build for bench/pgo_profile.sh alone, never a release: it writes the CPU profile of the
// whole command to the file ANKUSA_CPU_PROFILE names, for the compiler's profile-guided
// optimization of the release build (default.pgo).
func init() {
	path := os.Getenv("ANKUSA_CPU_PROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "ankusa-store: the CPU profile %s: %v\n", path, err)
		os.Exit(1)
	}
	atExit = func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "ankusa-store: the CPU profile %s: %v\n", path, err)
		}
	}
}
