package faults

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/proctest"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
)

// Helpers shared by the cases that write: a format 2 store big enough for a migration of
// several steps, copies of it, a key-by-key dump (filling a file system is storetest.Fill).

// migNow is the start time every migration of these cases is given, so that runs compare.
const migNow = "2026-11-30T10:00:00Z"

// genStoreV2 makes a format 2 store of hooks hooks with the binary under test, in dir/name.
func genStoreV2(t *testing.T, dir string, hooks int) string {
	t.Helper()
	p := filepath.Join(dir, "gen")
	expect(t, run(t, "fixture", "--format", "2", "--seed", "7", "--tenants", "300", "--hooks", fmt.Sprint(hooks), "--dir", p), 0)
	return p
}

// copyStore copies a store directory with cp -a (not the code under test).
func copyStore(t *testing.T, src, dst string) string {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s %s: %v\n%s", src, dst, err, out)
	}
	return dst
}

// waitFile waits for path to exist while c runs; it fails the test if c ends first.
func waitFile(t *testing.T, c *exec.Cmd, done <-chan struct{}, path string) {
	t.Helper()
	waitUntil(t, done, func() string { return strings.Join(c.Args, " ") + " ended before " + path + " appeared" }, func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// waitUntil polls ready while a run started by started goes on; the run ending first fails
// the test with ended's message.
func waitUntil(t *testing.T, done <-chan struct{}, ended func() string, ready func() bool) {
	t.Helper()
	for !ready() {
		select {
		case <-done:
			t.Fatal(ended())
		case <-time.After(100 * time.Microsecond):
		}
	}
}

// fillFrozen stops the run c, fills the file system at mnt and lets the run go on, so that
// its next write needing new space fails; it waits for the run to end and returns what frees
// the space again.
func fillFrozen(t *testing.T, c *exec.Cmd, done <-chan struct{}, mnt string) (free func()) {
	t.Helper()
	if err := c.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	free = storetest.Fill(t, mnt)
	if err := c.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-done
	return free
}

// startedStopped runs the binary with pause ("NAME=POINT": migration.PauseEnv,
// health.RepairFaultEnv, ...) in its environment and returns once it has stopped itself at
// that point (proctest.StartToPoint); it goes on when sent SIGCONT. what names the point for
// the failure when the run ends first or never stops.
func startedStopped(t *testing.T, pause, what string, args ...string) (c *exec.Cmd, done chan struct{}, res *result) {
	t.Helper()
	r := proctest.StartToPoint(t, exec.Command(bin, args...), pause, what)
	return r.Cmd, r.Done, &r.Result
}

// started runs the binary in the background; done closes when it has exited (its
// result is then in *res).
func started(t *testing.T, args ...string) (c *exec.Cmd, done chan struct{}, res *result) {
	t.Helper()
	return startedCmd(t, exec.Command(bin, args...))
}

// startedCmd is started for a command the caller made (its environment, its credentials).
func startedCmd(t *testing.T, c *exec.Cmd) (_ *exec.Cmd, done chan struct{}, res *result) {
	t.Helper()
	r := proctest.Start(t, c)
	return r.Cmd, r.Done, &r.Result
}
