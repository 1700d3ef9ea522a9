package cmd

import (
	"context"

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
