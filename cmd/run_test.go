package cmd

import (
	"context"
	"testing"

	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
)

// runCLI runs the command tree in this process, as main does (Execute), on streams that
// are no terminal (iostreams.Test), and returns its exit status, stdout and stderr. A test
// that needs a terminal, a clock or an environment builds its streams from iostreams.Test
// itself (runSwept, helpAt, runAt).
func runCLI(ctx context.Context, args []string) (code int, stdout, stderr string) {
	streams, _, out, errb := iostreams.Test()
	code = Execute(ctx, streams, BuildInfo{Version: "test", Commit: "none"}, args)
	return code, out.String(), errb.String()
}

// runViews is runCLI for the length of test t.
func runViews(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLI(t.Context(), args)
}
