package cmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/internal/ui/progress"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
)

// runOnTerminal runs the CLI (this test binary, see TestMain) under a real pseudo-terminal
// of cols columns, stdout and stderr both on it, and returns what the terminal received.
func runOnTerminal(t *testing.T, cols int, env []string, args ...string) (string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, args...)
	c.Env = append(append(os.Environ(), asCLIEnv+"=1", "TERM=xterm-256color", "NO_COLOR=", "COLUMNS=", progress.Env+"="), env...)
	f, err := pty.StartWithSize(c, &pty.Winsize{Cols: uint16(cols), Rows: 50})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, rerr := io.Copy(&out, f) // until the child exits and the terminal hangs up (EIO)
	if rerr != nil && !errors.Is(rerr, syscall.EIO) {
		t.Fatal(rerr)
	}
	f.Close()
	code := 0
	if err := c.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return out.String(), code
}

// screenLines is what each line of output looks like on the terminal: a carriage return
// starts over at column 0 (the live progress line), escape sequences take no columns.
func screenLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		for _, seg := range strings.Split(strings.TrimSuffix(l, "\r"), "\r") {
			lines = append(lines, ansi.Strip(seg))
		}
	}
	return lines
}

// No line of the on-call views, nor of verify's report with findings, is wider than the
// terminal, at 80 or at 160 columns.
func TestTablesFitTheTerminal(t *testing.T) {
	td, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	v3 := filepath.Join(td, "store-v3.tar.zst")
	for _, cols := range []int{80, 160} {
		for _, args := range [][]string{
			{"tenants", "ls", v3},
			{"tenants", "ls", filepath.Join(td, "store-v2.tar.zst")},
			{"dlq", "scan", v3},
			{"dlq", "scan", "--tenant", "acme", "--limit", "5", v3},
			{"counters", "verify", filepath.Join(td, "health", "verify-faults.tar.zst")},
			{"counters", "verify", filepath.Join(td, "health", "verify-hi-sentinel.tar.zst")},
			{"scan", "hooks", "--limit", "5", v3},
			{"scan", "due", "--limit", "5", v3},
			{"scan", "counters", "--limit", "5", v3},
			{"keys", "decode", "44000000010000019ad434790000000000000000070001"},
		} {
			out, code := runOnTerminal(t, cols, nil, args...)
			if code > 1 && args[2] != filepath.Join(td, "health", "verify-hi-sentinel.tar.zst") {
				t.Errorf("%d columns, %v: exit %d\n%s", cols, args, code, out)
			}
			if !strings.Contains(out, "│") && !strings.Contains(out, "verdict") {
				t.Errorf("%d columns, %v: no table, no report:\n%s", cols, args, out)
			}
			// The tool's own colours pass the terminal's guard (internal/ui/guard.go) as colours,
			// not as escaped text.
			if strings.Contains(out, `\x1b`) || strings.Contains(out, `\r`) {
				t.Errorf("%d columns, %v: the tool's own sequences shown escaped:\n%s", cols, args, out)
			}
			for _, l := range screenLines(out) {
				if w := ansi.StringWidth(l); w > cols {
					t.Errorf("%d columns, %v: a line of %d columns:\n%s", cols, args[:2], w, l)
				}
			}
		}
	}
}

// On a terminal, long work shows a live line (done/total, rate, ETA) on stderr: migrate,
// its dry run, and counters verify.
func TestProgressOnTheTerminal(t *testing.T) {
	src := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, src, 20000, 200, 5)
	dry := storetest.CopyStore(t, src)
	run := storetest.CopyStore(t, src)
	for _, tc := range []struct {
		args []string
		want string // what the live line starts with
		unit string
	}{
		{[]string{"migrate", "--dry-run", dry}, "migrate --dry-r", " rows ("},
		{[]string{"migrate", "--no-backup", run}, "migrate /", " rows ("},
		// RocksDB's estimate of the keys: "of ~N", and no percentage (issue 29).
		{[]string{"counters", "verify", run}, "counters verify", " of ~"},
	} {
		for _, cols := range []int{80, 160} {
			if cols == 80 && tc.args[1] == "--no-backup" {
				continue // migrating twice is nothing to do
			}
			out, code := runOnTerminal(t, cols, nil, tc.args...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", tc.args, code, out)
			}
			live := false
			for _, seg := range strings.Split(out, "\r\x1b[K") {
				// "LABEL  done/total rows (pct%)  rate  ETA  elapsed". At 80 columns a line
				// that does not fit drops its percentage, rate and ETA before it cuts its
				// text (TestProgressLineKeepsWhatMatters): a fast run's rate of seven digits
				// does not fit there, so only the 160-column line must have them.
				pct := strings.Contains(seg, "%)")
				full := cols < 160 || (pct == (tc.unit != " of ~") && strings.Contains(seg, "/s  ETA "))
				if strings.HasPrefix(seg, tc.want) && strings.Contains(seg, tc.unit) && full {
					live = true
				}
			}
			if !live {
				t.Errorf("%d columns, %v: no live progress line starting %q:\n%q", cols, tc.args, tc.want, out)
			}
			for _, l := range screenLines(out) {
				if w := ansi.StringWidth(l); w > cols {
					t.Errorf("%d columns, %v: a line of %d columns:\n%s", cols, tc.args[:1], w, l)
				}
			}
		}
	}
}

// dlq show on a terminal is a describe block (issue 21): one "Field:  value" line each,
// sections indented, and the body verbatim: not wrapped, not indented, so that copying it
// from the terminal gives the body (cut at 512 bytes without --full, as its Body line says).
func TestDLQShowDescribesOnTheTerminal(t *testing.T) {
	td, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	v3 := filepath.Join(td, "store-v3.tar.zst")
	_, tsv, _ := runCLI(t.Context(), []string{"dlq", "show", "383:1", v3})
	var body string
	for _, l := range strings.Split(tsv, "\n") {
		if f := strings.SplitN(l, "\t", 3); len(f) == 3 && strings.HasPrefix(f[1], "hook.body") {
			body = f[2]
		}
	}
	if len(body) <= 512 {
		t.Fatalf("want a body over 512 bytes, got %q", body)
	}
	for _, cols := range []int{80, 160} {
		for _, full := range []bool{false, true} {
			args := []string{"dlq", "show", "383:1", v3}
			want := body[:512]
			if full {
				args = []string{"dlq", "show", "--full", "383:1", v3}
				want = body
			}
			out, code := runOnTerminal(t, cols, []string{"NO_COLOR=1"}, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s", args, code, out)
			}
			out = strings.ReplaceAll(out, "\r\n", "\n")
			if !strings.Contains(out, "\n"+want+"\n") {
				t.Errorf("%d columns, %v: the body is not there verbatim on its own lines:\n%s", cols, args, out)
			}
			if n := strings.Count(out, "Ref:"); n != 1 {
				t.Errorf("%d columns: Ref: %d times, want once:\n%s", cols, n, out)
			}
			for _, want := range []string{"\nTenant:", "\nDelivery:\n  Status:", "  Last error:", "\nHook:\n  Id:", "    x-request-id: req-1-383\n", "\nIndex keys:\n  x at="} {
				if !strings.Contains(out, want) {
					t.Errorf("%d columns: no %q:\n%s", cols, want, out)
				}
			}
			if strings.Contains(out, "│") {
				t.Errorf("%d columns: a table, not a describe block:\n%s", cols, out)
			}
			for _, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(l); w > cols && !strings.HasPrefix(l, body[:20]) {
					t.Errorf("%d columns: a line of %d columns: %s", cols, w, l)
				}
			}
		}
	}
}

// On a terminal, format 2 tenants ls shows its total (the rows its pass reads, counted
// beside it as status counts them) with the percentage and the ETA.
func TestTenantsLsV2ShowsATotal(t *testing.T) {
	src := filepath.Join(t.TempDir(), "store")
	migWriteV2Store(t, src, 20000, 200, 5)
	out, code := runOnTerminal(t, 80, nil, "tenants", "ls", src)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	withTotal := regexp.MustCompile(`  [0-9,]+/[0-9,]+ rows \([0-9]+%\)  `)
	live := false
	for _, seg := range strings.Split(out, "\r\x1b[K") {
		if strings.HasPrefix(seg, "tenants ls") && strings.Contains(seg, "backlog pass (format 2)") && withTotal.MatchString(seg) {
			live = true
		}
	}
	if !live {
		t.Errorf("no live line with a total:\n%q", out)
	}
}
