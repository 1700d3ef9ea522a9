package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/lockholder"
	"github.com/ankusa/ankusa-store/internal/testkit/proctest"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/checkpoint"
)

// What checkpoints rm does to a directory tree is raced here by real second processes: a
// shell loop swapping links in, a node opening the checkpoint at the pause points. Whatever
// wins, no file outside the checkpoint is removed, and the exit status is one the README's
// table documents for what happened (0 removed, 2 refused, 3 the tree changed under it, 4 a
// node holds it).

// migratedWithCheckpoint is the committed format 2 store migrated at root/data/s, its
// checkpoint at root/data/s.pre-v3.
func migratedWithCheckpoint(t *testing.T) (data, store, cp string) {
	t.Helper()
	data = filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	store = filepath.Join(data, "s")
	if err := os.Rename(extract(t, "store-v2", data), store); err != nil {
		t.Fatal(err)
	}
	cp = store + ".pre-v3"
	expect(t, run(t, "migrate", "--backup", cp, "--now", migNow, store), 0)
	return data, store, cp
}

// victimDir is a directory outside every checkpoint, with a file and a subdirectory, that the
// links planted in the tests point at.
func victimDir(t *testing.T) string {
	t.Helper()
	v := filepath.Join(t.TempDir(), "victim")
	if err := os.MkdirAll(filepath.Join(v, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"keep", "sub/keep"} {
		if err := os.WriteFile(filepath.Join(v, f), []byte("keep\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

func victimIntact(t *testing.T, v string) {
	t.Helper()
	for _, f := range []string{"keep", "sub/keep"} {
		if b, err := os.ReadFile(filepath.Join(v, f)); err != nil || string(b) != "keep\n" {
			t.Fatalf("a file outside the checkpoint was removed or changed: %s: %v", f, err)
		}
	}
}

// The second processes that swap a link in, each a shell script on $1 (the directory to
// swap) and $2 (the link's target).
const (
	// swapInALoop swaps $1 for a link and back as fast as it can.
	swapInALoop = `while :; do mv -T "$1" "$1.real" 2>/dev/null && ln -s "$2" "$1" 2>/dev/null; rm -f "$1" 2>/dev/null; mv -T "$1.real" "$1" 2>/dev/null; done`
	// swapOnceListed waits until the removal has listed $1's parent (its first file, $3, is
	// gone) and swaps $1 for a link for good: what a removal that lists a directory and later
	// recurses by path follows every time.
	swapOnceListed = `while [ -e "$3" ]; do :; done; mv -T "$1" "$1.real" && ln -s "$2" "$1"`
)

// swapper starts script (swapInALoop, swapOnceListed) as a second process on args; stop ends
// it (and the test's end does). The script runs in a process group of its own and stop kills
// the whole group: killing the shell alone left the mv or ln it had started running, and one
// that renamed after the test's end made its temporary directory's removal fail ("directory
// not empty", seen on a loaded machine).
func swapper(t *testing.T, script string, args ...string) (stop func()) {
	t.Helper()
	c := exec.Command("sh", append([]string{"-c", script, "swap"}, args...)...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			c.Wait()
		})
	}
	t.Cleanup(stop)
	return stop
}

// TestSwapperStopsWithItsChildren: once stop returns, nothing the swapper's script started
// writes any more (a child that outlived the shell did, after the test's end).
func TestSwapperStopsWithItsChildren(t *testing.T) {
	dir := t.TempDir()
	stop := swapper(t, `(sleep 0.5; mkdir "$1/late") & wait`, dir)
	time.Sleep(100 * time.Millisecond)
	stop()
	time.Sleep(time.Second)
	if _, err := os.Stat(filepath.Join(dir, "late")); err == nil {
		t.Fatal("a child of the stopped swapper wrote after stop returned")
	}
}

// TestCheckpointsRmFinishesAForgedAsideRaced is issue 44's first case: anyone who can write in
// the store's parent makes a .X.ankusa-removing-<dead pid> directory whose marker names the
// store, with 20,000 files ahead of a subdirectory, and a second process swaps that
// subdirectory for a link to a directory outside while rm empties it (no pause point: the
// files give it its time): once the directory is listed, for good, or in a loop. The link is
// removed as a link every time; nothing outside is removed.
func TestCheckpointsRmFinishesAForgedAsideRaced(t *testing.T) {
	data, store, _ := migratedWithCheckpoint(t)
	for round, script := range []string{swapOnceListed, swapOnceListed, swapInALoop} {
		v := victimDir(t)
		aside := filepath.Join(data, fmt.Sprintf(".x%d%s%d", round, ".ankusa-removing-", proctest.DeadPid(t)))
		if err := os.MkdirAll(filepath.Join(aside, "zz"), 0o755); err != nil {
			t.Fatal(err)
		}
		mark, _ := json.Marshal(checkpoint.Marker{Store: store, StartedAtMS: 1})
		if err := os.WriteFile(filepath.Join(aside, checkpoint.MigrationMark), mark, 0o644); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20000; i++ {
			if err := os.WriteFile(filepath.Join(aside, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(aside, "zz", "inner"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		x := filepath.Join(data, fmt.Sprintf("x%d", round))
		expect(t, run(t, "checkpoints", "ls", store), 0, "checkpoints rm --yes "+x+" finishes it")
		stop := swapper(t, script, filepath.Join(aside, "zz"), v, filepath.Join(aside, "f00000"))
		r := run(t, "checkpoints", "rm", "--yes", x)
		stop()
		if r.Signaled || r.Code != 0 && r.Code != 3 {
			t.Fatalf("rm of a forged set-aside directory raced by a link swap: %s", r)
		}
		victimIntact(t, v)
		t.Logf("round %d: exit %d", round, r.Code)
	}
	expect(t, run(t, "counters", "verify", "-q", store), 0)
}

// TestCheckpointsRmRefusesALinkSwappedIn is the second case: the checkpoint swapped for a link
// (to the store itself) after the checks, at the pause point, and then without one by a shell
// loop. What the rename moved is checked again: a link is put back and refused, exit 2.
func TestCheckpointsRmRefusesALinkSwappedIn(t *testing.T) {
	data, store, cp := migratedWithCheckpoint(t)
	before := storetest.TreeOf(t, store)

	c, done, res := startedStopped(t, checkpoint.RemovePauseEnv+"="+checkpoint.RemovePauseChecked, "at checked", "checkpoints", "rm", "--yes", cp)
	if err := os.Rename(cp, cp+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(store, cp); err != nil {
		t.Fatal(err)
	}
	if err := c.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-done
	expect(t, *res, 2, "replaced between the checks and its removal", "nothing was removed")
	storetest.SameTree(t, before, storetest.TreeOf(t, store))
	if fi, err := os.Lstat(cp); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the planted link is not put back where it was: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(data, ".*")); len(left) > 0 {
		t.Fatalf("left set aside: %v", left)
	}
	os.Remove(cp)
	if err := os.Rename(cp+".real", cp); err != nil {
		t.Fatal(err)
	}

	// Without a pause: a loop swaps it for a link to a directory outside while rm runs.
	v := victimDir(t)
	swapper(t, swapInALoop, cp, v)
	var codes []int
	for i := 0; i < 20; i++ {
		r := run(t, "checkpoints", "rm", "--yes", cp)
		if r.Signaled || r.Code != 0 && r.Code != 2 && r.Code != 3 {
			t.Fatalf("rm raced by a link swap: %s", r)
		}
		victimIntact(t, v)
		codes = append(codes, r.Code)
		if r.Code == 0 {
			break
		}
	}
	t.Logf("exit codes: %v", codes)
	victimIntact(t, v)
	// The store's files as they were; its record has lost the checkpoint's line if rm removed it.
	after := storetest.TreeOf(t, store)
	delete(before, checkpoint.RecordFile)
	delete(after, checkpoint.RecordFile)
	storetest.SameTree(t, before, after)
}

// TestCheckpointsRmRefusesANodeStartedAtThePause is the fourth case: a node opening the
// checkpoint (lockholder.Open: RocksDB read-write, its LOCK taken) while rm is stopped with every
// check passed makes rm refuse, exit 4, the checkpoint where it was; one that tries to open
// what rm has set aside is refused by its RocksDB, since rm holds the LOCK for the whole
// removal, and rm goes on.
func TestCheckpointsRmRefusesANodeStartedAtThePause(t *testing.T) {
	data, _, cp := migratedWithCheckpoint(t)

	c, done, res := startedStopped(t, checkpoint.RemovePauseEnv+"="+checkpoint.RemovePauseChecked, "at checked", "checkpoints", "rm", "--yes", cp)
	lockholder.Hold(t, cp, lockholder.Open)
	if err := c.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-done
	expect(t, *res, 4, "in use as a store", "nothing was removed")
	if _, err := os.Stat(filepath.Join(cp, "CURRENT")); err != nil {
		t.Fatalf("the held checkpoint was touched: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(data, ".*")); len(left) > 0 {
		t.Fatalf("left set aside: %v", left)
	}

	// Another checkpoint, idle: a node that starts on it once rm has set it aside is refused.
	data, _, cp2 := migratedWithCheckpoint(t)
	c, done, res = startedStopped(t, checkpoint.RemovePauseEnv+"="+checkpoint.RemovePauseSetAside, "at set-aside", "checkpoints", "rm", "--yes", cp2)
	asides, _ := filepath.Glob(filepath.Join(data, ".s.pre-v3.ankusa-removing-*"))
	if len(asides) != 1 {
		t.Fatalf("set aside: %v", asides)
	}
	h := lockholder.Start(t, asides[0], lockholder.Open)
	held, line := h.Held()
	if code := h.Release(); held || code == 0 {
		t.Fatalf("a node opened the checkpoint rm is removing (%q, exit %d)", line, code)
	}
	if err := c.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	<-done
	expect(t, *res, 0)
	if _, err := os.Lstat(cp2); !os.IsNotExist(err) {
		t.Fatalf("%s is still there: %v", cp2, err)
	}
}

// TestCheckpointsRmFinishChecksAsAFirstRm is the third case: after an rm killed at set-aside,
// the store moved away, then damaged: finishing the removal is refused as a first rm refuses
// (exit 2, exit 3), everything set aside left as it was, and checkpoints ls does not advise it;
// with the store back and whole, the same rm finishes it.
func TestCheckpointsRmFinishChecksAsAFirstRm(t *testing.T) {
	data, store, cp := migratedWithCheckpoint(t)
	c, done, res := startedStopped(t, checkpoint.RemovePauseEnv+"="+checkpoint.RemovePauseSetAside, "at set-aside", "checkpoints", "rm", "--yes", cp)
	if err := c.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	if !res.Signaled {
		t.Fatalf("rm was not killed: %s", res)
	}
	asides, _ := filepath.Glob(filepath.Join(data, ".s.pre-v3.ankusa-removing-*"))
	if len(asides) != 1 {
		t.Fatalf("set aside: %v", asides)
	}
	aside := storetest.TreeOf(t, asides[0])

	moved := store + "-moved"
	if err := os.Rename(store, moved); err != nil {
		t.Fatal(err)
	}
	expect(t, run(t, "checkpoints", "rm", "--yes", cp), 2, "not there", "finishing it is refused")
	storetest.SameTree(t, aside, storetest.TreeOf(t, asides[0]))
	if err := os.Rename(moved, store); err != nil {
		t.Fatal(err)
	}

	current := filepath.Join(store, "CURRENT")
	if err := os.Rename(current, current+".aside"); err != nil {
		t.Fatal(err)
	}
	ls := run(t, "checkpoints", "ls", store)
	expect(t, ls, 0, "finishing it is refused", "does not open")
	if strings.Contains(ls.Stderr, "finishes it") {
		t.Fatalf("ls advises a finish rm refuses:\n%s", ls)
	}
	expect(t, run(t, "checkpoints", "rm", "--yes", cp), 3, "does not open", "finishing it is refused")
	storetest.SameTree(t, aside, storetest.TreeOf(t, asides[0]))
	if err := os.Rename(current+".aside", current); err != nil {
		t.Fatal(err)
	}

	expect(t, run(t, "checkpoints", "ls", store), 0, "checkpoints rm --yes "+cp+" finishes it")
	expect(t, run(t, "checkpoints", "rm", "--yes", cp), 0, "finished removing "+cp)
	if left, _ := filepath.Glob(filepath.Join(data, ".*")); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}
