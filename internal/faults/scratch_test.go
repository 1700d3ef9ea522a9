package faults

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/scratch"
	"github.com/ankusa/ankusa-store/pkg/fixture"
)

// The temporary copies of issue 19's seventh case: an archive extracted to be read, a
// secondary instance's directory, a fixture built aside. Killed with kill -9, a run leaves
// its scratch directory (nothing can stop that); the next run removes it, and never one whose
// process still runs. SIGHUP is SIGTERM: the run stops, removes its directory and exits 130
// with one sentence (before the fix: the default action, exit 129 and everything left).

// scratchIn lists the scratch directories of a kind (archive, secondary) in tmp.
func scratchIn(t *testing.T, tmp, kind string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(tmp, scratch.TempPrefix+kind+"-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// markedIn counts the scratch directories of a kind in tmp that have their marker: their
// process holds the lock (it writes the marker after taking it).
func markedIn(tmp, kind string) int {
	m, _ := filepath.Glob(filepath.Join(tmp, scratch.TempPrefix+kind+"-*", scratch.Marker))
	return len(m)
}

// withTmp is the binary run with TMPDIR=tmp.
func withTmp(tmp string, args ...string) *exec.Cmd {
	c := exec.Command(bin, args...)
	c.Env = append(os.Environ(), "TMPDIR="+tmp)
	return c
}

// stopWhen starts c and stops it (SIGSTOP) once ready holds: the moment is the test's, not a
// clock's.
func stopWhen(t *testing.T, c *exec.Cmd, what string, ready func() bool) (done chan struct{}, res *result) {
	t.Helper()
	c, done, res = startedCmd(t, c)
	waitUntil(t, done, func() string { return fmt.Sprintf("%s ended before %s: %s", strings.Join(c.Args, " "), what, res) }, ready)
	if err := c.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	return done, res
}

func TestKilledRunsLeaveNoScratch(t *testing.T) {
	work := t.TempDir()
	archive := filepath.Join(work, "big.tar.zst")
	expect(t, run(t, "fixture", "--format", "3", "--hooks", "30000", "--tenants", "300", archive), 0)
	store := filepath.Join(work, "s")
	expect(t, run(t, "fixture", "--format", "3", "--hooks", "30000", "--tenants", "300", "--dir", store), 0)

	for _, tc := range []struct {
		kind string
		args []string
	}{
		{"archive", []string{"counters", "verify", archive}},
		{"secondary", []string{"counters", "verify", "--secondary", store}},
	} {
		t.Run(tc.kind+"/kill -9", func(t *testing.T) {
			tmp := t.TempDir()
			// A run that stays alive (stopped, holding its lock) through all of it.
			live := withTmp(tmp, tc.args...)
			liveDone, liveRes := stopWhen(t, live, "its scratch directory appeared", func() bool { return markedIn(tmp, tc.kind) == 1 })
			liveDir := scratchIn(t, tmp, tc.kind)[0]

			c := withTmp(tmp, tc.args...)
			done, _ := stopWhen(t, c, "its scratch directory appeared", func() bool { return markedIn(tmp, tc.kind) == 2 })
			c.Process.Kill()
			<-done
			var dead string
			for _, d := range scratchIn(t, tmp, tc.kind) {
				if d != liveDir {
					dead = d
				}
			}
			if dead == "" {
				t.Fatalf("kill -9 left nothing: the test did not kill it while it had its directory")
			}
			if _, err := os.Stat(filepath.Join(dead, scratch.Marker)); err != nil {
				t.Fatalf("the leftover has no marker: %v", err)
			}

			// Any next run removes the dead run's directory and keeps the live one's.
			expect(t, runCmd(t, withTmp(tmp, "version")), 0)
			if _, err := os.Stat(dead); err == nil {
				t.Fatalf("the next run did not remove %s", dead)
			}
			if _, err := os.Stat(liveDir); err != nil {
				t.Fatalf("the next run removed the directory of a run still alive: %v", err)
			}
			if err := live.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			<-liveDone
			expect(t, *liveRes, 0)
			if left := scratchIn(t, tmp, tc.kind); len(left) != 0 {
				t.Fatalf("a run that finished left %v", left)
			}
		})
		for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
			t.Run(tc.kind+"/"+sig.String(), func(t *testing.T) {
				tmp := t.TempDir()
				c := withTmp(tmp, tc.args...)
				done, res := stopWhen(t, c, "its scratch directory appeared", func() bool { return markedIn(tmp, tc.kind) > 0 })
				if err := c.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if err := c.Process.Signal(syscall.SIGCONT); err != nil {
					t.Fatal(err)
				}
				<-done
				expect(t, *res, 130, "Error: interrupted: nothing was written, the store is as it was; run the command again for its answer\n")
				if n := strings.Count(res.Stderr, "Error:"); n != 1 || strings.Contains(res.Stderr, "context canceled") {
					t.Fatalf("want one sentence:\n%s", res)
				}
				if left := scratchIn(t, tmp, tc.kind); len(left) != 0 {
					t.Fatalf("%v left %v", sig, left)
				}
			})
		}
	}

	t.Run("fixture/kill -9", func(t *testing.T) {
		dir := t.TempDir()
		partials := func() []string {
			m, _ := filepath.Glob(filepath.Join(dir, ".*"+fixture.PartialInfix+"*"))
			return m
		}
		// Each killed run leaves its partial store; the next fixture beside it, for any OUT,
		// removes it (and leaves its own if it is killed too).
		var prev []string
		for _, out := range []string{"out", "out.tar.zst"} {
			args := []string{"fixture", "--hooks", "8000", "--tenants", "300", filepath.Join(dir, out)}
			if out == "out" {
				args = append(args, "--dir")
			}
			c := exec.Command(bin, args...)
			c.Env = append(os.Environ(), fixture.KillPointEnv+"="+fixture.KillAfterHooks+"1")
			if r := runCmd(t, c); !r.Signaled {
				t.Fatalf("not killed: %s", r)
			}
			p := partials()
			if len(p) != 1 || !strings.HasPrefix(filepath.Base(p[0]), "."+out+fixture.PartialInfix) {
				t.Fatalf("after %s was killed: %v, want its partial store alone (the one before %v removed)", out, p, prev)
			}
			if _, err := os.Stat(filepath.Join(p[0], scratch.Marker)); err != nil {
				t.Fatalf("the leftover has no marker: %v", err)
			}
			prev = p
		}
		expect(t, run(t, "fixture", "--hooks", "400", filepath.Join(dir, "other.tar.zst")), 0)
		if p := partials(); len(p) != 0 {
			t.Fatalf("the next fixture left %v", p)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Fatalf("left in %s: %v", dir, ents)
		}
	})

	t.Run("fixture/SIGHUP", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		c := exec.Command(bin, "fixture", "--hooks", "30000", "--tenants", "300", "--dir", out)
		done, res := stopWhen(t, c, "its partial store appeared", func() bool {
			m, _ := filepath.Glob(filepath.Join(dir, ".out"+fixture.PartialInfix+"*", "store", "CURRENT"))
			return len(m) > 0
		})
		c.Process.Signal(syscall.SIGHUP)
		c.Process.Signal(syscall.SIGCONT)
		<-done
		expect(t, *res, 130, "Error: interrupted: nothing was written at "+out+" (the partial store was removed); run the same command again\n")
		if n := strings.Count(res.Stderr, "Error:"); n != 1 || strings.Contains(res.Stderr, "context canceled") {
			t.Fatalf("want one sentence:\n%s", res)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("the interrupted fixture left %v", ents)
		}
	})
}

// TestPanicExitStatus is what the exit status texts say of a crash, shown (issue 21, item 7:
// --help said a Go panic exits 2, the README 134): the real binary panics
// (fixture.KillPanic), prints the panic and its goroutines' stacks, and ends by SIGABRT,
// which a shell reports as 134, never 2 (usage).
// What the sweep of any run finds in the temporary directory under a scratch name but
// without a marker is not a dead run's: a directory of someone else's, whatever its pid
// says, left alone with everything in it; only an empty one whose pid is not running (its
// owner died between its mkdir and its marker) goes. A plain status runs the sweep.
func TestSweepLeavesUnmarkedDirectories(t *testing.T) {
	tmp := t.TempDir()
	deadPid := strconv.Itoa(1<<22 + 12345) // above any pid_max: never running
	notes := filepath.Join(tmp, scratch.TempPrefix+"notes-"+deadPid+"-1")
	if err := os.MkdirAll(filepath.Join(notes, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(notes, "data", "f"), []byte("an operator's notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(tmp, scratch.TempPrefix+"archive-"+deadPid+"-2")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	store := extract(t, "store-v3", t.TempDir())
	expectOut(t, runCmd(t, withTmp(tmp, "status", store)), 0, "format")
	if b, err := os.ReadFile(filepath.Join(notes, "data", "f")); err != nil || string(b) != "an operator's notes\n" {
		t.Fatalf("status's sweep removed an unmarked directory of a dead pid's name (%s): %q, %v", notes, b, err)
	}
	if _, err := os.Stat(empty); err == nil {
		t.Fatalf("status's sweep left %s, empty and of a dead pid", empty)
	}
}

func TestPanicExitStatus(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.tar.zst")
	c := exec.Command("sh", "-c", `"$0" "$@"; echo "exit $?"`, bin, "fixture", "--hooks", "400", out)
	c.Env = append(os.Environ(), fixture.KillPointEnv+"="+fixture.KillPanic)
	r := runCmd(t, c)
	if r.Stdout != "exit 134\n" {
		t.Fatalf("a Go panic: %q to the shell, want exit 134\n%s", r.Stdout, r)
	}
	for _, want := range []string{"panic: fixture: the Go panic", " [running]:\n", "runtime.goexit"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr does not show %q:\n%s", want, r.Stderr)
		}
	}
	// The signal itself, without a shell.
	d := exec.Command(bin, "fixture", "--hooks", "400", filepath.Join(t.TempDir(), "out.tar.zst"))
	d.Env = c.Env
	err := d.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatalf("a Go panic: %v", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGABRT {
		t.Fatalf("a Go panic ended %v, not by SIGABRT", ee)
	}
}
