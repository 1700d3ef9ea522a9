package cmd

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui/iostreams"
	"github.com/ankusa/ankusa-store/pkg/fixture"
)

var updateGolden = flag.Bool("update", false, "rewrite the JSON golden files under testdata/status")

// runAt runs the CLI in-process with the clock stopped at the committed
// fixtures' now, so that ages are the same on every run.
func runAt(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	streams, _, out, errb := iostreams.Test()
	env := &Env{IO: streams, Build: BuildInfo{Version: "test"}, Now: func() time.Time { return fixture.DefaultNow }}
	root := NewRootCmd(env)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return exitcode.Of(err), out.String(), errb.String()
}

// TestJSONGolden holds the JSON of status and the detail views on the
// committed fixtures to golden files (go test ./cmd -run TestJSONGolden -update
// rewrites them): their schema is what scripts parse.
func TestJSONGolden(t *testing.T) {
	tests := []struct {
		golden string
		code   int
		args   []string
	}{
		{"status-v3", 0, []string{"status", "-o", "json", "../testdata/store-v3.tar.zst"}},
		{"status-v3-exact", 0, []string{"status", "--exact", "--tenants-max", "4", "-o", "json", "../testdata/store-v3.tar.zst"}},
		{"status-v2", 0, []string{"status", "-o", "json", "../testdata/store-v2.tar.zst"}},
		{"status-midway", 0, []string{"status", "-o", "json", "../testdata/migration/midway.tar.zst"}},
		{"dlq-show-v3", 0, []string{"dlq", "show", "-o", "json", "383:1", "../testdata/store-v3.tar.zst"}},
		{"dlq-show-v2-id", 0, []string{"dlq", "show", "--id", "hk_000000000000018a", "-o", "json", "../testdata/store-v2.tar.zst"}},
		{"tenants-show-v3", 0, []string{"tenants", "show", "-o", "json", "acme", "../testdata/store-v3.tar.zst"}},
		{"tenants-show-v2", 0, []string{"tenants", "show", "-o", "json", "acme", "../testdata/store-v2.tar.zst"}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			code, out, errOut := runAt(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, errOut)
			}
			// A memtable's size depends on its arena's allocations, which
			// differ from run to run: the only number not held exactly.
			out = memtableBytes.ReplaceAllString(out, `"memtable_bytes": "(varies)"`)
			path := filepath.Join("..", "testdata", "status", tc.golden+".golden.json")
			if *updateGolden {
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if out != string(want) {
				t.Errorf("%s differs from %s (run with -update if the change is meant):\n%s", strings.Join(tc.args, " "), path, lineDiff(string(want), out))
			}
		})
	}
}

var memtableBytes = regexp.MustCompile(`"memtable_bytes": [0-9]+`)

// lineDiff shows the first lines that differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	n := 0
	for i := 0; i < max(len(w), len(g)) && n < 10; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want " + wl + "\n  got  " + gl + "\n")
			n++
		}
	}
	return b.String()
}
