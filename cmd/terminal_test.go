package cmd

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/storetest"

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
	c.Env = append(append(os.Environ(), asCLIEnv+"=1", "TERM=xterm-256color", "NO_COLOR=", "COLUMNS=", progressEnv+"="), env...)
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
		{[]string{"counters", "verify", run}, "counters verify ", " keys ("},
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
				// "LABEL  done/total rows (pct%)  rate  ETA  elapsed"
				if strings.HasPrefix(seg, tc.want) && strings.Contains(seg, tc.unit) && strings.Contains(seg, "%)") && strings.Contains(seg, "/s  ETA ") {
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
