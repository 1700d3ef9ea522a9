package cmd

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/ui/progress"
)

// The pipe tests run this test binary as the CLI (TestMain, asCLIEnv) with its streams on
// real pipes, through bash, the way an operator's pipeline runs it (issue 19): a closed pipe
// never kills the process with SIGPIPE (141), a listing whose reader went away exits
// exitcode.ReaderGone with nothing on stderr, and migrate finishes its work whatever became of
// its stdout and stderr.

// pipeline runs script under bash -o pipefail with $ANKUSA_CLI naming the CLI; it returns
// the pipeline's exit status (pipefail: the CLI's, when it is not 0) and its stderr.
func pipeline(t *testing.T, script string, env ...string) (int, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command("bash", "-c", "set -o pipefail; "+script)
	c.Env = append(append(os.Environ(), asCLIEnv+"=1", "ANKUSA_CLI="+exe, progress.Env+"="), env...)
	var errb strings.Builder
	c.Stderr = &errb
	err = c.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), errb.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, errb.String()
}

func TestListingToAClosedPipe(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join(dir, "s")
	if code, errOut := pipeline(t, `"$ANKUSA_CLI" fixture -q --format 3 --seed 3 --tenants 3000 --hooks 20000 --dir `+s+` >/dev/null`); code != 0 {
		t.Fatalf("fixture: exit %d\n%s", code, errOut)
	}
	for _, args := range []string{
		"tenants ls", "tenants ls -o json", "tenants ls -o table", "tenants ls --sort pending",
		"dlq scan --limit 0", "dlq scan --limit 0 -o json", "dlq scan --limit 0 -o table",
		"scan index --limit 0", "scan index --limit 0 -o json",
		"status -o table", "--help", "tenants ls --help",
	} {
		// Every listing is bigger than a pipe's buffer (64 KiB) but --help and status: those
		// may be written whole before head exits, and then they simply succeed.
		code, errOut := pipeline(t, `"$ANKUSA_CLI" `+args+` `+s+` | head -c1 >/dev/null`)
		if code != exitcode.ReaderGone || errOut != "" {
			t.Errorf("%s | head -c1: exit %d (want %d), stderr %q", args, code, exitcode.ReaderGone, errOut)
		}
	}
	// The store's own messages still reach a stderr that is open.
	if code, errOut := pipeline(t, `"$ANKUSA_CLI" tenants ls `+filepath.Join(dir, "nothing")+` | head -c1`); code != exitcode.Store || !strings.Contains(errOut, "Error: ") {
		t.Errorf("a missing store through a pipe: exit %d, stderr %q", code, errOut)
	}
}

// migrate S 2>&1 | head -1: head reads the first line and goes away; the migration goes on
// to the end (progress lines every millisecond meet the closed pipe all along), exits 0, and
// leaves S format 3 and healthy. The same with only stdout closed.
func TestMigrateToAClosedPipe(t *testing.T) {
	dir := t.TempDir()
	for _, redirect := range []string{"2>&1 | head -1", "| head -1", "2>&1 | true", "| (exec 0<&-; sleep 0.2)"} {
		t.Run(redirect, func(t *testing.T) {
			s := filepath.Join(dir, strings.Map(func(r rune) rune {
				if r >= 'a' && r <= 'z' {
					return r
				}
				return '_'
			}, redirect))
			if code, errOut := pipeline(t, `"$ANKUSA_CLI" fixture -q --format 2 --seed 7 --tenants 300 --hooks 20000 --dir `+s+` >/dev/null`); code != 0 {
				t.Fatalf("fixture: exit %d\n%s", code, errOut)
			}
			code, errOut := pipeline(t, `"$ANKUSA_CLI" migrate --progress plain --no-backup `+s+` `+redirect+` >/dev/null`,
				progress.IntervalEnv+"=1ms")
			if code != 0 {
				t.Fatalf("migrate %s: exit %d\n%s", redirect, code, errOut)
			}
			code, out, errOut := runAt(t, "status", "-o", "json", s)
			var st struct {
				Format uint32 `json:"format"`
				State  string `json:"state"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Format != 3 || st.State != "format 3" {
				t.Fatalf("after migrate %s: exit %d, %+v\n%s", redirect, code, st, errOut)
			}
			if code, _, errOut := runAt(t, "counters", "verify", "-q", s); code != 0 {
				t.Fatalf("verify after migrate %s: exit %d\n%s", redirect, code, errOut)
			}
		})
	}
}
