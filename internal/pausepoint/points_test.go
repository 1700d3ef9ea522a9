package pausepoint

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/proctest"
)

// The test binary is the process that meets the points: run as pointsChildEnv says, it
// passes the points in order, writing each one's name to a file before it, so that the
// test, meeting it stopped, sees which it got past.
const (
	pointsChildEnv = "PAUSEPOINT_TEST_CHILD" // the file the child writes to
	pointsEnv      = "PAUSEPOINT_TEST_POINT" // the child's variable, as a package's PauseEnv
)

var childPoints = FromEnv(pointsEnv)

func TestMain(m *testing.M) {
	if log := os.Getenv(pointsChildEnv); log != "" {
		f, err := os.Create(log)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for _, p := range []string{"first", "second", "third"} {
			fmt.Fprintln(f, p)
			childPoints.Stop(p)
		}
		childPoints.Kill("killed")
		fmt.Fprintln(f, "end")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child(t *testing.T) (*exec.Cmd, string) {
	log := filepath.Join(t.TempDir(), "log")
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), pointsChildEnv+"="+log)
	return c, log
}

// A run stops at the point its variable names and at no other, goes on when sent SIGCONT,
// and a run whose variable names no point (or is unset) never stops.
func TestStopsAtTheNamedPointOnly(t *testing.T) {
	for _, tc := range []struct {
		point string
		seen  string // the log when it stops; "" for a run that never stops
	}{
		{"first", "first\n"},
		{"second", "first\nsecond\n"},
		{"third", "first\nsecond\nthird\n"},
		{"fourth", ""},
		{"", ""},
	} {
		t.Run("point="+tc.point, func(t *testing.T) {
			c, log := child(t)
			if tc.seen == "" {
				c.Env = append(c.Env, pointsEnv+"="+tc.point)
				r := proctest.Start(t, c)
				if err := proctest.WaitStopped(c.Process.Pid, r.Done, proctest.StopWithin); err != proctest.ErrEnded {
					t.Fatalf("a run naming %q: %v, want it to end without stopping", tc.point, err)
				}
				if b, _ := os.ReadFile(log); string(b) != "first\nsecond\nthird\nend\n" || r.Code != 0 {
					t.Fatalf("a run naming %q wrote %q, %s", tc.point, b, r.Result)
				}
				return
			}
			r := proctest.StartToPoint(t, c, pointsEnv+"="+tc.point, "at "+tc.point)
			if b, _ := os.ReadFile(log); string(b) != tc.seen {
				t.Fatalf("stopped at %s having written %q, want %q", tc.point, b, tc.seen)
			}
			if err := c.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			<-r.Done
			if b, _ := os.ReadFile(log); r.Code != 0 || string(b) != "first\nsecond\nthird\nend\n" {
				t.Fatalf("let go on from %s: %s, wrote %q", tc.point, r.Result, b)
			}
		})
	}
}

// A kill point ends the run with SIGKILL there: nothing after it runs.
func TestKillEndsTheRunThere(t *testing.T) {
	c, log := child(t)
	c.Env = append(c.Env, pointsEnv+"=killed")
	r := proctest.Start(t, c)
	<-r.Done
	if b, _ := os.ReadFile(log); !r.Signaled || string(b) != "first\nsecond\nthird\n" {
		t.Fatalf("killed: %s, wrote %q", r.Result, b)
	}
}
