package migration

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// migrateBulk opens the store read-write, runs the bulk method and closes it.
func migrateBulk(t testing.TB, dir string, opts Options) Summary {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	if opts.Now.IsZero() {
		opts.Now = testStart
	}
	sum, err := RunBulk(context.Background(), st, opts)
	if err != nil {
		t.Fatalf("bulk: %v", err)
	}
	if !sum.Finished {
		t.Fatalf("bulk: not finished: %+v", sum)
	}
	return sum
}

// sameSummary compares what two runs say of a store, but for their clocks.
func sameSummary(t *testing.T, steps, bulk Summary) {
	t.Helper()
	for _, s := range []*Summary{&steps, &bulk} {
		s.Duration, s.Whole, s.RecordErr, s.StagedRuns, s.StagedTables, s.StagedJoin = 0, nil, nil, 0, 0, 0
	}
	if !reflect.DeepEqual(steps, bulk) {
		t.Errorf("the summaries differ:\nsteps %+v\nbulk  %+v", steps, bulk)
	}
}

// The bulk method leaves, key for key, the store the steps leave, and the contract's model
// (expectV3) says it is the right one: on stores with hooks missing, undecodable and of nil
// tenants, dead rows without delivery rows, stray keys in every phase's family, and none at
// all; with runs spilled every few writes (so the merge joins dozens of runs, a key's writes
// spread over several) and with one run in memory; with the hook table and without.
func TestBulkIsTheSteps(t *testing.T) {
	strays := func(dir string) {
		s := &v2Store{Writer: storetest.NewWriter(format.Format2), t: t, dir: dir, hooks: map[uint64]bool{}}
		var err error
		if s.st, err = rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite}); err != nil {
			t.Fatal(err)
		}
		for _, k := range [][]byte{
			[]byte("d\x00\x01"), append(format.DueV2Key{At: 5, Seq: 1}.Encode(), 0), []byte("d\xff\x01"),
			[]byte("f\x00"), []byte("x\x00\x00\x00"), []byte("a\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02"),
			// Keys of no family, which the steps never touch: below, between and above the
			// families, one between the two ranges the finish deletes.
			[]byte("\x00"), []byte("Z9"), []byte("b1"), []byte("e5"), []byte("g"), []byte("y\x07"), []byte("\xff\xff"),
		} {
			s.put(format.CFIndex, k, []byte("junk"))
		}
		s.close()
	}
	cases := []struct {
		name     string
		g        genSpec
		strays   bool
		runBytes int
		table    int
		// tableBytes: table files of a few hundred bytes, so that every family's writes
		// go to several, cut where a range deleted whole begins.
		tableBytes int
		// smallFiles: the old index in table files of some KiB (smallFiles), most of the old
		// rows' files dropped whole after the commit.
		smallFiles bool
	}{
		{name: "findings, small runs", g: genSpec{seed: 51, hooks: 300, tenants: 20, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1}, runBytes: 512},
		{name: "findings, small table files", g: genSpec{seed: 51, hooks: 300, tenants: 20, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1}, tableBytes: 300},
		{name: "strays, small table files", g: genSpec{seed: 53, hooks: 120, tenants: 5, now: testNow}, strays: true, tableBytes: 64},
		{name: "findings, one run", g: genSpec{seed: 52, hooks: 300, tenants: 20, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1}},
		{name: "strays, small runs, no hook table", g: genSpec{seed: 53, hooks: 120, tenants: 5, now: testNow}, strays: true, runBytes: 300, table: -1},
		{name: "many tenants, hook table", g: genSpec{seed: 54, hooks: 800, tenants: 400, now: testNow, nilTenant: 0.05}, runBytes: 4096, table: 1},
		{name: "empty", g: genSpec{seed: 55, now: testNow}},
		{name: "strays, the old index in small files", g: genSpec{seed: 56, hooks: 2000, tenants: 20, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1}, strays: true, smallFiles: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := makeV2(t, c.g)
			if c.strays {
				strays(src)
			}
			if c.smallFiles {
				smallFiles(t, src)
			}
			want := expectV3(t, src, testNow)
			// A dry run by either method's reads says the same (plan checks it), the joins'
			// runs spilled at once.
			plan(t, src, Options{hookTable: c.table, joinRuns: runs.Limits{SpillAfter: 64, ReadBuf: runs.DefaultLimits().ReadBuf}})
			stepsDir, bulkDir := storetest.CopyStore(t, src), storetest.CopyStore(t, src)
			steps := mustMigrate(t, stepsDir, Options{hookTable: c.table})
			bulk := migrateBulk(t, bulkDir, Options{hookTable: c.table, runBytes: c.runBytes, tableBytes: c.tableBytes})
			got := storetest.Dump(t, bulkDir)
			storetest.AssertSame(t, want, got)
			storetest.AssertSame(t, storetest.Dump(t, stepsDir), got)
			sameSummary(t, steps, bulk)
			left, err := filepath.Glob(filepath.Join(bulkDir, StagingPrefix+"*"))
			if err != nil || len(left) > 0 {
				t.Errorf("staging left: %v %v", left, err)
			}
		})
	}
}

// A staging directory a killed bulk run left in the store is removed by the next run; one
// whose run still holds it is not.
func TestBulkSweepsStaging(t *testing.T) {
	src := makeV2(t, genSpec{seed: 56, hooks: 20, tenants: 3, now: testNow})
	dead := filepath.Join(src, StagingPrefix+"999999999-1")
	if err := os.MkdirAll(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, "ANKUSA-SCRATCH"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, "index.sst"), []byte("half a table"), 0o600); err != nil {
		t.Fatal(err)
	}
	migrateBulk(t, src, Options{})
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("%s: %v, want it removed", dead, err)
	}
}

// A bulk run cancelled before its commit leaves the store as it was, file for file but the
// ones RocksDB rewrites on every open: the same keys, and no new family.
func TestBulkInterruptedChangesNothing(t *testing.T) {
	src := makeV2(t, genSpec{seed: 57, hooks: 400, tenants: 9, now: testNow})
	want := storetest.Dump(t, src)
	st, err := rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = RunBulk(ctx, st, Options{Now: testStart, stepRows: 7, OnStep: func(StepInfo) {
		if n++; n == 3 {
			cancel()
		}
	}})
	cancel()
	if err == nil {
		t.Fatal("a cancelled bulk run finished")
	}
	if st.HasFamily(format.CFTenants) || st.HasFamily(format.CFCounters) {
		t.Errorf("a cancelled bulk run created the new families")
	}
	st.Close()
	storetest.AssertSame(t, want, storetest.Dump(t, src))
}

// The bulk method's scanner reads each phase with one iterator, however many steps it makes:
// nothing writes to the store while it reads, so there are no memtables for an iterator to
// pin, and each new one seeks again (the steps' scanner lets its go every scanChunkSteps).
// Counted by RocksDB's own ticker over a run of a step a row.
func TestBulkScannerOneIteratorAPhase(t *testing.T) {
	src := makeV2(t, genSpec{seed: 67, hooks: 300, tenants: 20, now: testNow})
	dir := storetest.CopyStore(t, src)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite, Tune: rocks.Tuning{Statistics: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := RunBulk(context.Background(), st, Options{Now: testStart, stepRows: 1, hookParts: 1, hookWorkers: 1})
	if err != nil {
		t.Fatal(err)
	}
	created, ok := st.Ticker("rocksdb.num.iterator.created")
	// The join's scans (four phases' keys, two of them in two parts after two seeks each to
	// cut them, one part of hooks, the deliveries), the scanner's four phases, and a few
	// lookups' iterators (the lowest keys, the state): not one a chunk of steps.
	if !ok || created > 24 {
		t.Errorf("a bulk run of %d steps created %d iterators, want at most 24 (statistics: %v)", sum.Steps, created, ok)
	}
	if sum.Steps < 16*24 {
		t.Fatalf("the run made %d steps: too few for the test to tell one iterator a chunk of %d from one a phase", sum.Steps, scanChunkSteps)
	}
}

// Every scan of a bulk run reads ahead (bulkRead): the join's of the hooks, of the deliveries
// and of the rows' keys, and the scanner's of the rows. Told by RocksDB's own tickers of the
// reads of table files: the run reads the hooks' and deliveries' files once and the index
// family's twice (the join's pass over the keys, the scanner's over the rows), and a scan
// without readahead reads them a block a read (4 KiB here).
func TestBulkReadsAhead(t *testing.T) {
	src := makeV2(t, genSpec{seed: 71, hooks: 6000, tenants: 40, now: testNow})
	dir := storetest.CopyStore(t, src)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite, Tune: rocks.Tuning{Statistics: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	read := map[string]int{format.CFHooks: 1, format.CFDeliveries: 1, format.CFIndex: 2}
	for cf := range read {
		if err := st.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
	stats, err := st.FamilyStats()
	if err != nil {
		t.Fatal(err)
	}
	var bytes uint64
	minBlocks := map[string]uint64{}
	for _, fs := range stats {
		bytes += uint64(read[fs.Name]) * fs.SSTBytes
		minBlocks[fs.Name] = uint64(read[fs.Name]) * fs.SSTBytes / (8 << 10)
	}
	// The reads until the sort begins: the ingest and the settle after it read files too.
	rep := &readsUntil{t: t, st: st, phase: "sort", at: fileReads(t, st)}
	if _, err := RunBulk(context.Background(), st, Options{Now: testStart, Progress: rep}); err != nil {
		t.Fatal(err)
	}
	if !rep.done {
		t.Fatal("the run reported no sort stage")
	}
	reads := rep.reads
	// Each family's files in reads of 512 KiB, and a few reads a file besides (its footer,
	// index and properties, when it is opened; the files the commit ingests): far fewer than
	// the blocks of the smallest family a scan without readahead would read one by one.
	want := min(minBlocks[format.CFHooks], minBlocks[format.CFDeliveries], minBlocks[format.CFIndex]/2)
	if want < 20 {
		t.Fatalf("the store is too small to tell a scan without readahead: its smallest family is %d blocks of 8 KiB", want)
	}
	if reads >= want {
		t.Errorf("the bulk run read table files %d times, want fewer than %d (the blocks of 8 KiB of the smallest family it scans)", reads, want)
	}
	t.Logf("%d reads of table files, %d bytes scanned; fewest blocks of 8 KiB a family: %d", reads, bytes, want)
}

// readsUntil counts the reads of table files made from its creation until phase begins.
type readsUntil struct {
	t     *testing.T
	st    *rocks.Store
	phase string
	at    uint64
	reads uint64
	done  bool
}

func (*readsUntil) Add(int64)      {}
func (*readsUntil) SetTotal(int64) {}
func (r *readsUntil) Phase(p string) {
	if p == r.phase && !r.done {
		r.reads, r.done = fileReads(r.t, r.st)-r.at, true
	}
}

// fileReads is how many reads of table files RocksDB has made (a store opened with
// Tuning.Statistics).
func fileReads(t *testing.T, st *rocks.Store) uint64 {
	t.Helper()
	n, ok := st.TableFileReads()
	if !ok {
		t.Fatal("the statistics hold no read counts")
	}
	return n
}

// stageCounts keeps each stage's total and what was added to it.
type stageCounts struct {
	mu     sync.Mutex
	stage  string
	totals map[string]int64
	added  map[string]int64
}

func (s *stageCounts) Stage(name, _ string, total int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stage, s.totals[name] = name, total
}
func (s *stageCounts) Add(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.added[s.stage] += n
}
func (*stageCounts) SetTotal(int64) {}
func (*stageCounts) Phase(string)   {}

// The sort and write stages count to their totals and not past them, the runs spilled
// (whose bytes are not the writes': a spilled key is the rest of the one before's head),
// the write stage in two halves counting at once, each as it goes.
func TestBulkStagesCountToTheirTotals(t *testing.T) {
	// Past 65,536 writes a half, the count the merge tells as it goes.
	src := makeV2(t, genSpec{seed: 72, hooks: 100_000, tenants: 40, now: testNow})
	for _, runBytes := range []int{0, 256 << 10} {
		rep := &stageCounts{totals: map[string]int64{}, added: map[string]int64{}}
		sum := migrateBulk(t, storetest.CopyStore(t, src), Options{runBytes: runBytes, Progress: rep})
		if sum.StagedRuns == 0 {
			t.Fatalf("runs of %d bytes: none spilled", runBytes)
		}
		for _, st := range []string{StageSort, StageWrite} {
			if rep.totals[st] == 0 || rep.added[st] != rep.totals[st] {
				t.Errorf("runs of %d bytes: stage %s counted %d of %d", runBytes, st, rep.added[st], rep.totals[st])
			}
		}
	}
}
