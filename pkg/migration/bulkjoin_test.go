package migration

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/slots"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"pgregory.net/rapid"
)

// undecodableDeliveries replaces every third delivery row's value with bytes no decoder
// reads, so that dead rows of all three kinds (sized, undecodable, missing) are joined.
func undecodableDeliveries(t *testing.T, dir string) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b := rocks.NewBatch()
	n := 0
	err = st.Scan(format.CFDeliveries, nil, nil, rocks.ReadOpts{}, func(k, _ []byte) error {
		if n++; n%3 == 0 {
			b.Put(format.CFDeliveries, k, []byte("junk"))
		}
		return nil
	})
	if err == nil {
		err = st.Write(b, true)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The bulk method's sorted joins answer each row as the steps' lookups by key do, however
// they are cut into runs: batches of a few elements (hundreds of runs, a seq's rows across
// runs), spilled to a file after a few bytes, and whole; their answers in buckets of a few
// rows, spilled too, or in memory. Hooks
// missing, undecodable and of nil tenants, dead rows whose delivery row is missing or
// undecodable; the store and the summary are the steps'.
func TestBulkJoinsAreTheLookups(t *testing.T) {
	g := genSpec{seed: 58, hooks: 500, tenants: 30, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1}
	src := makeV2(t, g)
	undecodableDeliveries(t, src)
	stepsDir := storetest.CopyStore(t, src)
	steps := mustMigrate(t, stepsDir, Options{hookTable: -1})
	if steps.DeliveryMissing == 0 || steps.DeliveryUndecodable == 0 {
		t.Fatalf("the store has no dead rows of each kind: missing %d, undecodable %d", steps.DeliveryMissing, steps.DeliveryUndecodable)
	}
	want := storetest.Dump(t, stepsDir)
	for _, c := range []struct {
		name       string
		batch      int
		spillAfter int
		answers    slots.Limits
		spills     bool
	}{
		{"batches of 5, spilled", 5, 64, slots.Limits{}, true},
		// Buckets of 16 rows, their answers spilled after a few: the slots of each phase's
		// rows across buckets, and a bucket holding the end of one phase and the start of
		// the next.
		{"batches of 5, answers in small buckets, spilled", 5, 64, slots.Limits{BucketBits: 4, BufTotal: 64, BufLeast: 32, BufMost: 32, SpillAfter: 128}, true},
		{"answers alone spilled", 0, runs.DefaultLimits().SpillAfter, slots.Limits{BucketBits: 5, BufTotal: 64, BufLeast: 32, BufMost: 32, SpillAfter: 128}, true},
		{"batches of 64, in memory", 64, runs.DefaultLimits().SpillAfter, slots.Limits{}, false},
		{"one batch", 0, runs.DefaultLimits().SpillAfter, slots.Limits{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{joinBatch: c.batch, joinRuns: runs.Limits{SpillAfter: c.spillAfter, ReadBuf: runs.DefaultLimits().ReadBuf}, joinSlots: c.answers}
			dir := storetest.CopyStore(t, src)
			bulk := migrateBulk(t, dir, opts)
			storetest.AssertSame(t, want, storetest.Dump(t, dir))
			sameSummary(t, steps, bulk)
			// What the joins put in $TMPDIR is said: their runs' bytes when they spilled.
			if (bulk.StagedJoin > 0) != c.spills {
				t.Errorf("the joins' runs spilled: %v; the summary says %d bytes in the temporary directory", c.spills, bulk.StagedJoin)
			}
			// The runs went where the case says, or a spill bound ignored would
			// compare the join in memory with the lookups three times: with
			// $TMPDIR gone, a join that spills fails for want of its file, and
			// one in memory never asks for it.
			t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
			err := runBulk(t, storetest.CopyStore(t, src), opts)
			if missing := errors.Is(err, fs.ErrNotExist); missing != c.spills || (err != nil && !missing) {
				t.Errorf("with $TMPDIR gone: %v; want the join's file missing: %v", err, c.spills)
			}
		})
	}
}

// runBulk is RunBulk of dir with opts, its error.
func runBulk(t *testing.T, dir string, opts Options) error {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	opts.Now = testStart
	_, err = RunBulk(context.Background(), st, opts)
	return err
}

// The counters of the tenants past the bulk method's table of sums keep their operands in
// the runs, merged when the tables are written: the same store and summary either way.
func TestBulkCountersPastTheSums(t *testing.T) {
	src := makeV2(t, genSpec{seed: 59, hooks: 400, tenants: 40, now: testNow, missing: 0.05, nilTenant: 0.1})
	stepsDir := storetest.CopyStore(t, src)
	steps := mustMigrate(t, stepsDir, Options{})
	want := storetest.Dump(t, stepsDir)
	for _, c := range []struct {
		name    string
		sumOrds int
		runs    int
	}{
		{"none summed", 1, 0},
		{"ten summed, small runs", 10, 700},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := storetest.CopyStore(t, src)
			bulk := migrateBulk(t, dir, Options{sumOrds: c.sumOrds, runBytes: c.runs})
			storetest.AssertSame(t, want, storetest.Dump(t, dir))
			sameSummary(t, steps, bulk)
		})
	}
}

// The joins' row numbers sort as the scanner reads the rows: phase by phase, each phase's
// rows in scan order, its second part's (keyParts) after its first's, whatever the phases
// and parts before them hold; and a row's slot is its place in the scanner's order.
func TestRowIDsInScanOrder(t *testing.T) {
	const most = rowSecond - 1
	var prev uint64
	first := true
	for _, p := range RowPhases {
		for _, second := range []uint64{0, rowSecond} {
			for _, n := range []uint64{0, 1, 1 << 32, most} {
				id := rowID(p, n) | second
				if !first && id <= prev {
					t.Errorf("row %d of %v (second part: %v) numbered %#x, not after the row before's %#x", n, p, second != 0, id, prev)
				}
				prev, first = id, false
			}
		}
	}
	var j rowJoin
	for i, p := range RowPhases {
		j.first[p+1] = j.first[p] + uint64(100*(i+1))
		j.second[p] = uint64(10 * (i + 1))
	}
	for i, p := range RowPhases {
		for _, n := range []uint64{0, 3, uint64(10*(i+1)) - 1} {
			if got, want := j.slot(rowID(p, n)), j.first[p]+n; got != want {
				t.Errorf("row %d of %v's first part in slot %d, want %d", n, p, got, want)
			}
			if got, want := j.slot(rowID(p, n)|rowSecond), j.first[p]+j.second[p]+n; got != want {
				t.Errorf("row %d of %v's second part in slot %d, want %d", n, p, got, want)
			}
		}
	}
}

// midKey cuts between its keys: below the last, whatever they share and however long they
// are, and at or past the first unless that one is longer than 16 bytes or ends in a zero;
// halfway when they differ within 16 bytes.
func TestMidKey(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"d\x00\x00\x00\x00\x00\x00\x00\x10", "d\x00\x00\x00\x00\x00\x00\x00\x30", "d\x00\x00\x00\x00\x00\x00\x00\x20"},
		{"a", "c", "b"},
		{"a", "b", "a\x80"},
		{"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfe"},
		{"\x7f\xff\xff\xff\xff\xff\xff\xff\xff", "\x80\x00\x00\x00\x00\x00\x00\x00\x01", "\x80"},
	} {
		if got := string(midKey([]byte(c.a), []byte(c.b))); got != c.want {
			t.Errorf("midKey(%x, %x) = %x, want %x", c.a, c.b, got, c.want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.Byte(), 0, 24).Draw(t, "a")
		b := rapid.SliceOfN(rapid.Byte(), 1, 24).Draw(t, "b")
		if bytes.Compare(a, b) >= 0 {
			t.Skip("not a < b")
		}
		m := midKey(a, b)
		if bytes.Compare(m, b) >= 0 {
			t.Fatalf("midKey(%x, %x) = %x, not below the last", a, b, m)
		}
		if len(a) <= 16 && !bytes.HasSuffix(a, []byte{0}) && bytes.Compare(m, a) < 0 {
			t.Fatalf("midKey(%x, %x) = %x, below the first", a, b, m)
		}
	})
}

// The key pass numbers the dead and the due rows the same wherever keyParts cuts them: at a
// row halfway, at a phase's first and last rows, between two keys, at a stray, before every
// key and past them, at the end sentinel, and not at all; with batches of a few rows, so
// that a seq's rows of both parts lie in several runs. The store and the summary are the
// steps'.
func TestKeyPartsAreTheWholePhases(t *testing.T) {
	src := makeV2(t, genSpec{seed: 61, hooks: 400, tenants: 20, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1})
	undecodableDeliveries(t, src)
	storetest.AddStrays(t, src)
	stepsDir := storetest.CopyStore(t, src)
	steps := mustMigrate(t, stepsDir, Options{})
	want := storetest.Dump(t, stepsDir)

	// Each phase's keys between its sentinels, and its strays among them.
	keys, strays := map[Phase][][]byte{}, map[Phase][][]byte{}
	st, err := rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range RowPhases {
		fam := p.family()
		err := st.ScanKeys(fam.CF, format.Successor(fam.Lo), fam.Hi, rocks.ReadOpts{}, func(k []byte) error {
			keys[p] = append(keys[p], bytes.Clone(k))
			if rowOfKey(p, k).stray {
				strays[p] = append(strays[p], bytes.Clone(k))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(keys[p]) < 4 || len(strays[p]) == 0 {
			t.Fatalf("%v: %d keys, %d strays; the test wants a few of both", p, len(keys[p]), len(strays[p]))
		}
	}
	st.Close()

	for _, c := range []struct {
		name string
		at   func(p Phase) []byte
	}{
		{"at a row halfway", func(p Phase) []byte { return keys[p][len(keys[p])/2] }},
		{"at the first row", func(p Phase) []byte { return keys[p][0] }},
		{"at the last row", func(p Phase) []byte { return keys[p][len(keys[p])-1] }},
		{"between two keys", func(p Phase) []byte { return format.Successor(keys[p][len(keys[p])/3]) }},
		{"at a stray", func(p Phase) []byte { return strays[p][0] }},
		{"before every key", func(p Phase) []byte { return p.family().Lo }},
		{"at the end sentinel", func(p Phase) []byte { return p.family().Hi }},
		{"past every key", func(p Phase) []byte { return format.Successor(p.family().Hi) }},
		{"not cut", func(Phase) []byte { return nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := storetest.CopyStore(t, src)
			bulk := migrateBulk(t, dir, Options{keySplit: c.at, joinBatch: 5})
			storetest.AssertSame(t, want, storetest.Dump(t, dir))
			sameSummary(t, steps, bulk)
		})
	}
}
