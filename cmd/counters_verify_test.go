package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// While a node holds the store, a repair is refused with exit 4 and writes
// nothing; a plain verify runs beside the node.
func TestCountersVerifyLocked(t *testing.T) {
	dir := storetest.Extract(t, "health/verify-counters.tar.zst")
	node, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	code, _, stderr := runCLI(t.Context(), []string{"counters", "verify", "--repair", "--yes", "--backup", filepath.Join(t.TempDir(), "cp"), dir})
	if code != exitcode.Locked || !strings.Contains(stderr, "locked") {
		t.Fatalf("repair of a held store: exit %d, %s", code, stderr)
	}
	code, stdout, _ := runCLI(t.Context(), []string{"counters", "verify", "-o", "tsv", dir})
	if code != exitcode.Findings || !strings.Contains(stdout, "counter_mismatch\t1\tacme\tpending\t7\t4\t-3") {
		t.Fatalf("verify beside the node: exit %d\n%s", code, stdout)
	}
}

// On a terminal a healthy store prints no empty table, only what was counted and the
// verdict, on stdout (a result), in green unless NO_COLOR says otherwise.
func TestCountersVerifyHealthyTerminal(t *testing.T) {
	for _, noColor := range []string{"", "1"} {
		streams, _, out, errb := iostreams.Test()
		env := func(k string) string {
			if k == "NO_COLOR" {
				return noColor
			}
			return ""
		}
		streams.OutIsTerminal = true
		streams.Env = env
		code := Execute(context.Background(), streams,
			BuildInfo{Version: "test"}, []string{"counters", "verify", filepath.Join("..", "testdata", "store-v3.tar.zst")})
		colored := strings.Contains(out.String(), "\x1b[32mverdict: healthy")
		if code != exitcode.OK || strings.Contains(out.String(), "│") || !strings.Contains(out.String(), "verdict: healthy") || errb.Len() != 0 ||
			colored != (noColor == "") || (noColor != "" && strings.Contains(out.String(), "\x1b[")) {
			t.Fatalf("NO_COLOR=%q: exit %d\nstdout %q\nstderr %s", noColor, code, out.String(), errb.String())
		}
	}
}
