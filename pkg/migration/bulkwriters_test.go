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
				// The family's file in either half of the write stage (bulksplit.go).
				for _, name := range []string{bad + ".sst", bad + "-b.sst"} {
					if err := os.Mkdir(filepath.Join(dir, name), 0o700); err != nil {
						t.Fatal(err)
					}
				}
			}
			before := runtime.NumGoroutine()
			files, err := bulkTables(context.Background(), st, runs, dir, 0, nil)
			settledGoroutines(t, before)
			if bad == "" {
				if err != nil || len(files) != len(bufCFs) {
					t.Fatalf("files %v, error %v; want one of each of the %d families", files, err, len(bufCFs))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), bad+".sst") && !strings.Contains(err.Error(), bad+"-b.sst") {
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
	files, err := bulkTables(ctx, st, runs, t.TempDir(), 0, nil)
	settledGoroutines(t, before)
	if err != context.Canceled || files != nil {
		t.Fatalf("files %v, error %v; want none and context.Canceled", files, err)
	}
}

// The index family's files hold the family whole and follow one another in key order, cut
// at tableBytes: ingested in place of the family, every one lands in the last level (the
// ingest fails for files that overlap), and the family reads the runs' keys over its old
// ones outside the ranges the finish deletes, the runs' value where both hold a key.
// Wherever the write stage cuts the runs in two (bulksplit.go: before every key, inside the
// runs' keys, at a kept key, at a key both hold, after every key of the runs), in memory or
// spilled in runs of a few writes with a restart point every few: the same family.
func TestBulkTablesHoldTheIndexWhole(t *testing.T) {
	for _, c := range []struct {
		name      string
		fileBytes int
		files     int
		split     string
		runBytes  int
		restart   int
	}{
		{"one file", 0, 1, "", 1 << 20, 0},
		{"files of 1 KiB", 1 << 10, 3, "", 1 << 20, 0},
		{"cut before every key", 0, 1, "a", 1 << 20, 0},
		{"cut inside the runs' keys, spilled", 1 << 10, 2, "x\x00\x00\x00\x02", 700, 200},
		{"cut at a kept key, spilled", 0, 1, "e5", 500, 100},
		{"cut at a key both hold, spilled", 0, 1, "x\x00\x00\x00\x03", 600, 1},
		{"cut after the runs' keys", 0, 1, "x\xff", 1 << 20, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := openWithNewFamilies(t)
			b := rocks.NewBatch()
			for _, k := range []string{"b1", "e5", "x\x00\x00\x00\x03", "y"} {
				b.Put(format.CFIndex, []byte(k), []byte("old"))
			}
			if err := st.Write(b, true); err != nil {
				t.Fatal(err)
			}
			// The old keys the write stage carries over: those outside the ranges the finish
			// deletes and the dead and archive families' interiors, whose keys a run's
			// scanner hands the runs whole (a row's new value, a stray as it was).
			var want []string
			if err := st.Scan(format.CFIndex, nil, nil, rocks.ReadOpts{}, func(k, v []byte) error {
				if !spansCover(skippedSpans, k) {
					want = append(want, string(k))
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			runs := newBulkRuns(t.TempDir(), c.runBytes)
			t.Cleanup(runs.free)
			if c.split != "" {
				runs.split = []byte(c.split)
			}
			if c.restart > 0 {
				runs.restartBytes = int64(c.restart)
			}
			val := make([]byte, 100)
			for _, prefix := range []string{"a", "x"} {
				for i := range 10 {
					k := append([]byte(prefix), format.EncodeU32(uint32(i))...)
					if err := runs.add(cfIndex, bufPut, k, val); err != nil {
						t.Fatal(err)
					}
					want = append(want, string(k))
				}
			}
			slices.Sort(want)
			want = slices.Compact(want)
			stage := filepath.Join(st.Dir, StagingPrefix+"test")
			if err := os.Mkdir(stage, 0o700); err != nil {
				t.Fatal(err)
			}
			files, err := bulkTables(context.Background(), st, runs, stage, c.fileBytes, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range files[format.CFIndex] {
				names = append(names, strings.TrimSuffix(filepath.Base(f), ".sst"))
			}
			if len(names) < c.files || names[0] != "index" && names[0] != "index-b" {
				t.Errorf("the index family's files %v, want at least %d, the first \"index\" or \"index-b\"", names, c.files)
			}
			if c.runBytes < 1<<20 && len(runs.spills) < 2 {
				t.Errorf("%d runs spilled, want several", len(runs.spills))
			}
			if err := st.Flush(format.CFIndex); err != nil {
				t.Fatal(err)
			}
			if err := st.IngestFileSetsReplacing(map[string][]string{format.CFIndex: files[format.CFIndex]}, []string{format.CFIndex}); err != nil {
				t.Fatal(err)
			}
			levels, err := st.FileLevels(format.CFIndex)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range levels {
				if f.Level != rocks.NumLevels-1 {
					t.Errorf("a file %q .. %q in L%d, want every one in the last level", f.Smallest, f.Largest, f.Level)
				}
			}
			var got []string
			if err := st.Scan(format.CFIndex, nil, nil, rocks.ReadOpts{}, func(k, v []byte) error {
				if string(v) == "old" && !slices.Contains([]string{"b1", "e5", "y"}, string(k)) {
					t.Errorf("%q holds its old value, want the runs'", k)
				}
				got = append(got, string(k))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("the index family after the ingest:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

// The write stage tells its progress as the merge goes, not only at its end (at 10^8 rows
// it lasts some 40 s): the runs' key and value bytes every 65,536 writes of each half (some
// 300,000 writes each, cut at the sample's median).
func TestBulkTablesTellTheirProgress(t *testing.T) {
	st := openWithNewFamilies(t)
	runs := newBulkRuns(t.TempDir(), 1<<20)
	t.Cleanup(runs.free)
	const writes = 600_000
	for i := range writes {
		if err := runs.add(cfIndex, bufPut, append([]byte("a"), format.EncodeU32(uint32(i))...), []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	var told []int64
	if _, err := bulkTables(context.Background(), st, runs, t.TempDir(), 0, func(n int64) { told = append(told, n) }); err != nil {
		t.Fatal(err)
	}
	want := slices.Repeat([]int64{65536 * 6}, 8)
	if !slices.Equal(told, want) {
		t.Errorf("progress told %v, want %v", told, want)
	}
}
