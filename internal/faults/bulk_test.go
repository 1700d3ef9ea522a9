package faults

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/migration"
)

// The bulk method (migrate --method bulk) killed, on a full disk and signalled: it promises
// that the store holds exactly what it held (a new empty family at most) until its one
// ingest, and is migrated after it, so every stop is checked against those two stores,
// the one it started from and the one an uninterrupted bulk run leaves.

// bulkHooks is the size of the store these cases migrate: a bulk run of it takes a second
// or two here, long enough for twenty instants drawn over it to land in every stage.
const bulkHooks = 8000

// bulkCase is a format 2 store, what it holds, and what an uninterrupted bulk run leaves of
// it, and how long that run took.
type bulkCase struct {
	src           string
	before, after storetest.Contents
	full          time.Duration
}

func newBulkCase(t *testing.T) bulkCase {
	t.Helper()
	src := genStoreV2(t, t.TempDir(), bulkHooks)
	ref := copyStore(t, src, filepath.Join(t.TempDir(), "uninterrupted"))
	began := time.Now()
	expect(t, run(t, bulkArgs(ref, "bulk")...), 0)
	return bulkCase{src: src, before: storetest.Dump(t, src), after: storetest.Dump(t, ref), full: time.Since(began)}
}

func bulkArgs(store, method string) []string {
	return []string{"migrate", "--no-backup", "-q", "--now", migNow, "--method", method, store}
}

// bulkLeft checks what a stopped bulk run left in dir: the store it started from, but for
// the new families created empty, or the migrated store. It says which.
func (bc bulkCase) bulkLeft(t *testing.T, dir string) (migrated bool) {
	t.Helper()
	got := storetest.Dump(t, dir)
	if storetest.Diff(bc.after, got) == "" {
		return true
	}
	for cf, rows := range got {
		if _, old := bc.before[cf]; !old && len(rows) == 0 {
			delete(got, cf) // a family the run created, nothing in it
		}
	}
	if d := storetest.Diff(bc.before, got); d != "" {
		t.Fatalf("the store is neither as it was nor migrated; against as it was:\n%s", d)
	}
	return false
}

// stagings lists the bulk staging directories in the store.
func stagings(t *testing.T, dir string) []string {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, migration.StagingPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// rerun runs the same migration again with method: it finishes, the store is the
// uninterrupted run's, verifies healthy, and holds no staging.
func (bc bulkCase) rerun(t *testing.T, dir, method string) {
	t.Helper()
	expect(t, run(t, bulkArgs(dir, method)...), 0)
	storetest.AssertSame(t, bc.after, storetest.Dump(t, dir))
	if left := stagings(t, dir); len(left) > 0 {
		t.Fatalf("the rerun (--method %s) left staging: %v", method, left)
	}
	expect(t, run(t, "counters", "verify", dir), 0)
}

// rerunMethod alternates the rerun's method: the bulk method again, or auto.
func rerunMethod(i int) string {
	if i%2 == 0 {
		return "bulk"
	}
	return "auto"
}

// TestMigrateBulkKilled kills a bulk run with kill -9 at 20 instants drawn over the whole of
// an uninterrupted run (reading, sorting, writing tables, the ingest, the flush and settle
// after it; the seed is logged), each on a fresh copy of the store: the store is as it was
// or migrated, and the rerun (--method bulk, then auto, in turn) finishes to the
// uninterrupted result, healthy, with no staging left.
func TestMigrateBulkKilled(t *testing.T) {
	bc := newBulkCase(t)
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 45))
	t.Logf("seed %d; an uninterrupted bulk run takes %v", seed, bc.full)
	const kills = 20
	landed, migrated, staged := 0, 0, 0
	// full is the shortest run seen: the reference run is the first, on a cold page cache,
	// and a later run that ends before its instant says how long a run really takes (drawn
	// over the reference alone, 12 of 20 instants fell after a run on an idle machine).
	full := bc.full
	for i := range kills {
		dir := copyStore(t, bc.src, filepath.Join(t.TempDir(), fmt.Sprint("k", i)))
		began := time.Now()
		c, done, res := started(t, bulkArgs(dir, "bulk")...)
		select {
		case <-done:
			full = min(full, time.Since(began))
		case <-time.After(time.Duration(r.Int64N(int64(full)))):
			_ = c.Process.Signal(syscall.SIGKILL)
			<-done
		}
		if res.Signaled {
			landed++
		} else {
			expect(t, *res, 0)
		}
		if len(stagings(t, dir)) > 0 {
			staged++
		}
		if bc.bulkLeft(t, dir) {
			migrated++
		}
		bc.rerun(t, dir, rerunMethod(i))
	}
	t.Logf("%d kills landed while the run lived (%d with its staging on disk), %d left it migrated; the shortest run %v", landed, staged, migrated, full)
	if landed < kills/2 {
		t.Fatalf("only %d of %d kills landed while the run lived: the instants did not cover the run", landed, kills)
	}
}

// TestMigrateBulkKilledAt kills a bulk run with kill -9 where it stops itself at each stage
// boundary (migration.PauseEnv's bulk points): on every run, the store as it was before the
// ingest, migrated after it, the staging there (the killed run could not remove it), and the
// rerun sweeps it and finishes.
func TestMigrateBulkKilledAt(t *testing.T) {
	bc := newBulkCase(t)
	for i, point := range migration.BulkPauses {
		t.Run(point, func(t *testing.T) {
			dir := copyStore(t, bc.src, filepath.Join(t.TempDir(), "store"))
			c, done, res := startedStopped(t, migration.PauseEnv+"="+point, "at "+point, bulkArgs(dir, "bulk")...)
			if err := c.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-done
			if !res.Signaled {
				t.Fatalf("not killed: %s", res)
			}
			if got, want := bc.bulkLeft(t, dir), point == migration.PauseBulkIngested; got != want {
				t.Fatalf("killed at %s: migrated %v, want %v", point, got, want)
			}
			if len(stagings(t, dir)) != 1 {
				t.Fatalf("killed at %s: staging %v, want the killed run's", point, stagings(t, dir))
			}
			bc.rerun(t, dir, rerunMethod(i))
		})
	}
}

// TestMigrateBulkDiskFull fills the store's file system (a real tmpfs) where a bulk run stops
// itself at each stage boundary, and lets it go on: exit 3 saying no space, the store as it
// was when the disk fills before the tables are written, migrated when it fills after (the
// ingest itself needs no new space), the message saying which; the staging removed by the run
// itself; with room again, the same command finishes.
func TestMigrateBulkDiskFull(t *testing.T) {
	bc := newBulkCase(t)
	for i, point := range migration.BulkPauses {
		t.Run(point, func(t *testing.T) {
			mnt := storetest.MountTmpfs(t, 64<<20)
			dir := copyStore(t, bc.src, filepath.Join(mnt, "store"))
			c, done, res := startedStopped(t, migration.PauseEnv+"="+point, "at "+point, bulkArgs(dir, "bulk")...)
			free := fillFrozen(t, c, done, mnt)
			t.Logf("full at %s: %s", point, lastError(res.Stderr))
			expect(t, *res, 3, "no space left on device")
			free()
			// The ingest needs no new block: its files are linked in from the staging and its
			// MANIFEST record fits in the room RocksDB preallocated for the MANIFEST, so a disk
			// full before it fails the flush and settle after it, the store migrated.
			migrated := point == migration.PauseBulkWritten || point == migration.PauseBulkIngested
			if migrated {
				expect(t, *res, 3, "the store is migrated (format 3, complete")
			} else {
				expect(t, *res, 3, "nothing was changed: the store is as it was (a new empty family at most)")
			}
			if got := bc.bulkLeft(t, dir); got != migrated {
				t.Fatalf("full at %s: migrated %v, want %v", point, got, migrated)
			}
			if left := stagings(t, dir); len(left) > 0 {
				t.Fatalf("full at %s: the run left its staging %v", point, left)
			}
			bc.rerun(t, dir, rerunMethod(i))
		})
	}
}

// TestMigrateBulkSignalled sends SIGTERM (and SIGINT) to a bulk run stopped at each stage
// boundary before its ingest: exit 130, the store as it was (a new empty family at most), the
// staging removed; the rerun finishes. After the ingest the migration is done: the signal
// cuts the settle short, and the store is migrated.
func TestMigrateBulkSignalled(t *testing.T) {
	bc := newBulkCase(t)
	for i, point := range migration.BulkPauses {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(point+"/"+sig.String(), func(t *testing.T) {
				dir := copyStore(t, bc.src, filepath.Join(t.TempDir(), "store"))
				c, done, res := startedStopped(t, migration.PauseEnv+"="+point, "at "+point, bulkArgs(dir, "bulk")...)
				if err := c.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if err := c.Process.Signal(syscall.SIGCONT); err != nil {
					t.Fatal(err)
				}
				<-done
				t.Logf("%s at %s: %s", sig, point, lastError(res.Stderr))
				migrated := point == migration.PauseBulkIngested
				if migrated {
					expect(t, *res, 0)
				} else {
					expect(t, *res, 130, "nothing was changed: the store is as it was (a new empty family at most)")
				}
				if got := bc.bulkLeft(t, dir); got != migrated {
					t.Fatalf("%s at %s: migrated %v, want %v", sig, point, got, migrated)
				}
				if left := stagings(t, dir); len(left) > 0 {
					t.Fatalf("%s at %s: the run left its staging %v", sig, point, left)
				}
				bc.rerun(t, dir, rerunMethod(i))
			})
		}
	}
}

// lastError is the last "Error:" line of stderr and what follows it, for the log.
func lastError(stderr string) string {
	if i := strings.LastIndex(stderr, "Error:"); i >= 0 {
		return strings.TrimSpace(stderr[i:])
	}
	return strings.TrimSpace(stderr)
}
