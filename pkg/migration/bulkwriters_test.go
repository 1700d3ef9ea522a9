package migration

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// runsOfEveryFamily is runs holding writes of every family the bulk method writes, the
// index family's over several of the writers' batches.
func runsOfEveryFamily(t *testing.T) *bulkRuns {
	t.Helper()
	runs := newBulkRuns(t.TempDir(), 1<<20)
	t.Cleanup(runs.free)
	val := make([]byte, 100)
	for i := range 3 * tableBatches * tableBatchBytes / 100 {
		// Keys of a family the finish does not delete whole ('a'), so that no put is covered.
		if err := runs.add(cfIndex, bufPut, append([]byte("a"), format.EncodeU32(uint32(i))...), val); err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []struct {
		cf       uint8
		key, val string
	}{{cfDefault, "k", "v"}, {cfTenants, "t", "x"}, {cfCounters, "c", "y"}} {
		if err := runs.add(w.cf, bufPut, []byte(w.key), []byte(w.val)); err != nil {
			t.Fatal(err)
		}
	}
	return runs
}

// openWithNewFamilies opens a small format 2 store read-write with the families the bulk
// method creates before it writes its files.
func openWithNewFamilies(t *testing.T) *rocks.Store {
	t.Helper()
	st, err := rocks.OpenStore(makeV2(t, genSpec{seed: 59, hooks: 10, tenants: 2, now: testNow}), rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, cf := range []string{format.CFTenants, format.CFCounters} {
		if err := st.CreateFamily(cf); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

// Every family's file is written, each by its own writer; a writer that fails (its file
// cannot be made: a directory stands in its place) fails the whole write with its error,
// whichever family it is, the other writers stop, and none is left running.
func TestBulkTablesWritersFail(t *testing.T) {
	for _, bad := range append([]string{""}, bufCFs[:]...) {
		name := bad
		if name == "" {
			name = "none"
		}
		t.Run(name, func(t *testing.T) {
			st := openWithNewFamilies(t)
			runs := runsOfEveryFamily(t)
			dir := t.TempDir()
			if bad != "" {
				if err := os.Mkdir(filepath.Join(dir, bad+".sst"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			before := runtime.NumGoroutine()
			files, err := bulkTables(context.Background(), st, runs, dir, 0)
			settledGoroutines(t, before)
			if bad == "" {
				if err != nil || len(files) != len(bufCFs) {
					t.Fatalf("files %v, error %v; want one of each of the %d families", files, err, len(bufCFs))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), bad+".sst") {
				t.Fatalf("files %v, error %v; want the error of %s.sst", files, err, bad)
			}
			if files != nil {
				t.Errorf("files %v beside the error", files)
			}
		})
	}
}

// A write cancelled while the writers work returns the context's error and leaves none of
// them running.
func TestBulkTablesCancelled(t *testing.T) {
	st := openWithNewFamilies(t)
	runs := runsOfEveryFamily(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := runtime.NumGoroutine()
	files, err := bulkTables(ctx, st, runs, t.TempDir(), 0)
	settledGoroutines(t, before)
	if err != context.Canceled || files != nil {
		t.Fatalf("files %v, error %v; want none and context.Canceled", files, err)
	}
}

// The index family's files are apart from one another, as IngestFileSets asks: the
// rewritten values below the ranges the finish deletes whole ('a') and those above them
// ('x') go to two files, not one spanning those ranges, and each range deletion to a file
// of its own; a file of the family's rows is cut at tableBytes.
func TestBulkTablesApart(t *testing.T) {
	for _, c := range []struct {
		name      string
		fileBytes int
		want      []string
	}{
		{"one file a side", 0, []string{"index", "index-2", "index-deleted-1", "index-deleted-2"}},
		{"files of 1 KiB", 1 << 10, []string{"index", "index-2", "index-3", "index-4", "index-deleted-1", "index-deleted-2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := openWithNewFamilies(t)
			runs := newBulkRuns(t.TempDir(), 1<<20)
			t.Cleanup(runs.free)
			val := make([]byte, 100)
			for _, prefix := range []string{"a", "x"} {
				for i := range 10 {
					if err := runs.add(cfIndex, bufPut, append([]byte(prefix), format.EncodeU32(uint32(i))...), val); err != nil {
						t.Fatal(err)
					}
				}
			}
			files, err := bulkTables(context.Background(), st, runs, t.TempDir(), c.fileBytes)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files[format.CFIndex] {
				got = append(got, strings.TrimSuffix(filepath.Base(f), ".sst"))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("the index family's files %v, want %v", got, c.want)
			}
		})
	}
}
