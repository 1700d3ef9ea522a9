package faults

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/fixture"
)

// leftovers lists what a fixture run left in dir beside the final name: everything must
// be named as partial (and no entry may be the final name unless it is complete).
func leftovers(t *testing.T, dir, final string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if name == final {
			continue
		}
		if !strings.HasPrefix(name, "."+final+".fixture-partial-") && !strings.HasPrefix(name, "."+final+".partial-") {
			t.Fatalf("a fixture run left %s, not named as partial", name)
		}
		out = append(out, filepath.Join(dir, name))
	}
	return out
}

// refusedLeftover: every read command refuses what an interrupted run left.
func refusedLeftover(t *testing.T, p string) {
	t.Helper()
	targets := []string{p}
	// An archive's build directory holds the store (built aside in it too).
	if ents, err := os.ReadDir(p); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				targets = append(targets, filepath.Join(p, e.Name()))
			}
		}
	}
	for _, target := range targets {
		for _, args := range [][]string{
			{"counters", "verify", target},
			{"tenants", "ls", target},
			{"migrate", "--dry-run", target},
		} {
			r := run(t, args...)
			expect(t, r, 3, "not an Ankusa store")
		}
	}
	t.Logf("refused: %s", strings.Join(targets, ", "))
}

// TestFixtureKilled kills fixture --dir and fixture OUT.tar.zst with kill -9 at random
// instants of their run: under the final name there is either nothing or a complete
// store (archive) that verifies; whatever else is left is named partial and refused.
func TestFixtureKilled(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	fargs := []string{"fixture", "--format", "3", "--hooks", "8000", "--tenants", "300"}
	ref := filepath.Join(t.TempDir(), "ref")
	expect(t, run(t, append(fargs, "--dir", ref)...), 0)
	want := storetest.Dump(t, ref)
	for _, archive := range []bool{false, true} {
		for i := 0; i < 4; i++ {
			dir := t.TempDir()
			final, args := fixtureOut(fargs, dir, archive)
			c, done, res := started(t, args...)
			// The build takes a second or two here; most kills land in it, some after.
			delay := time.Duration(rng.Int63n(int64(3 * time.Second)))
			select {
			case <-done:
			case <-time.After(delay):
				c.Process.Kill()
				<-done
			}
			t.Logf("archive %v, killed after %v: signaled %v exit %d", archive, delay, res.Signaled, res.Code)
			checkKilledFixture(t, dir, final, archive, *res, want)
		}
	}
}

// fixtureOut is fargs writing into dir: an archive out.tar.zst, or a directory out.
func fixtureOut(fargs []string, dir string, archive bool) (final string, args []string) {
	args = append([]string(nil), fargs...)
	if archive {
		return "out.tar.zst", append(args, filepath.Join(dir, "out.tar.zst"))
	}
	return "out", append(args, "--dir", filepath.Join(dir, "out"))
}

// checkKilledFixture checks what a fixture run that may have been killed left in dir:
// under the final name either nothing or the whole fixture (want, key for key) that
// verifies, and beside it only leftovers named partial that every command refuses.
func checkKilledFixture(t *testing.T, dir, final string, archive bool, res result, want storetest.Contents) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, final)); err == nil {
		// Whatever is under the final name is the whole fixture, key for key.
		got := filepath.Join(dir, final)
		if archive {
			got = filepath.Join(t.TempDir(), "x")
			os.MkdirAll(got, 0o755)
			if out, err := exec.Command("tar", "--zstd", "-xf", filepath.Join(dir, final), "-C", got).CombinedOutput(); err != nil {
				t.Fatalf("tar: %v\n%s", err, out)
			}
		}
		storetest.AssertSame(t, want, storetest.Dump(t, got))
		expect(t, run(t, "counters", "verify", filepath.Join(dir, final)), 0)
	} else if !res.Signaled {
		t.Fatalf("the run ended by itself and left no %s: %s", final, res)
	}
	for _, p := range leftovers(t, dir, final) {
		refusedLeftover(t, p)
	}
}

// TestFixtureKilledAt kills fixture --dir and fixture OUT.tar.zst at chosen points, the
// same on every run: mid-history (after the first commit, after half the hooks), after
// the store's last write, once it is closed and before it is published or packed (the
// build kills itself there: fixture.KillPointEnv), and mid-packing (the harness stops
// the run the moment its partial archive appears, then kills it). Every point must be
// reached, and leave nothing under the final name, only leftovers named partial that
// every command refuses. TestFixtureKilled keeps the kills at random instants.
func TestFixtureKilledAt(t *testing.T) {
	fargs := []string{"fixture", "--format", "3", "--hooks", "8000", "--tenants", "300"}
	points := []string{fixture.KillAfterHooks + "1", fixture.KillAfterHooks + "4000", fixture.KillWritten, fixture.KillClosed, "packing"}
	for _, archive := range []bool{false, true} {
		for _, point := range points {
			if point == "packing" && !archive {
				continue
			}
			t.Run(fmt.Sprintf("archive=%v/%s", archive, point), func(t *testing.T) {
				dir := t.TempDir()
				final, args := fixtureOut(fargs, dir, archive)
				var res result
				if point == "packing" {
					c, done, r := started(t, args...)
					// The archive is written inside the build's partial directory.
					partial := filepath.Join(dir, "."+final+fixture.PartialInfix+"*", "."+final+".partial-*")
					waitUntil(t, done, func() string { return fmt.Sprintf("the run ended before it packed: %s", r) }, func() bool {
						m, _ := filepath.Glob(partial)
						return len(m) > 0
					})
					if err := c.Process.Signal(syscall.SIGSTOP); err != nil {
						t.Fatal(err)
					}
					if _, err := os.Stat(filepath.Join(dir, final)); err == nil {
						t.Fatal("the archive was published before the run could be stopped mid-packing")
					}
					c.Process.Kill()
					<-done
					res = *r
				} else {
					c := exec.Command(bin, args...)
					c.Env = append(os.Environ(), fixture.KillPointEnv+"="+point)
					res = runCmd(t, c)
				}
				if !res.Signaled {
					t.Fatalf("the run was not killed at %s: %s", point, res)
				}
				if _, err := os.Stat(filepath.Join(dir, final)); err == nil {
					t.Fatalf("killed at %s, the run left %s", point, final)
				}
				checkKilledFixture(t, dir, final, archive, res, nil)
			})
		}
	}
}

// TestFixtureDiskFull: a fixture with no room is refused before it writes (exit 3, the
// numbers, nothing left); one whose disk fills while it builds ends with exit 3 and "no
// space left on device" and leaves no store or archive under the final name.
func TestFixtureDiskFull(t *testing.T) {
	t.Run("preflight", func(t *testing.T) {
		mnt := storetest.MountTmpfs(t, 4<<20)
		for _, out := range [][]string{{"--dir", filepath.Join(mnt, "out")}, {filepath.Join(mnt, "out.tar.zst")}} {
			r := run(t, append([]string{"fixture", "--hooks", "8000", "--tenants", "300"}, out...)...)
			expect(t, r, 3, "not enough free space for the fixture: it needs about", "the file system of "+mnt, "nothing was written")
			if ents, _ := os.ReadDir(mnt); len(ents) != 0 {
				t.Fatalf("the refused fixture left %v", ents)
			}
		}
	})
	for _, archive := range []bool{false, true} {
		name := map[bool]string{false: "dir", true: "archive"}[archive]
		t.Run("mid-run "+name, func(t *testing.T) {
			// Room for the fixture (it needs about 16 MiB) but not for the WAL's preallocation
			// (1.1 times its 32 MiB memtable): on a larger file system the WAL reserves that
			// room before the disk is filled, and the run frees it for its tables when the WAL
			// goes at the first flush, so it never runs out.
			mnt := storetest.MountTmpfs(t, 24<<20)
			final := "out"
			args := []string{"fixture", "--hooks", "8000", "--tenants", "300"}
			if archive {
				final = "out.tar.zst"
				args = append(args, filepath.Join(mnt, final))
			} else {
				args = append(args, "--dir", filepath.Join(mnt, final))
			}
			// It stops itself mid-history, before the flush at two fifths of it (3,200 hooks),
			// so that the disk is full while it still has tables to write.
			c, done, res := startedStopped(t, fixture.PausePointEnv+"="+fixture.KillAfterHooks+"1000", "mid-history", args...)
			free := storetest.Fill(t, mnt)
			if err := c.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			<-done
			free()
			expect(t, *res, 3, "no space left on device")
			t.Logf("%s", strings.TrimSpace(res.Stderr))
			if _, err := os.Stat(filepath.Join(mnt, final)); err == nil {
				t.Fatalf("a fixture that ran out of space left %s", final)
			}
			for _, p := range leftovers(t, mnt, final) {
				refusedLeftover(t, p)
			}
		})
	}
}
