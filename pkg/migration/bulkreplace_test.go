package migration

import (
	"bytes"
	"context"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// smallFiles compacts the store's index family into table files of some KiB in its last
// level, as a node's store of some GiB holds it in files of 64 MiB: most of the old due and
// inflight rows then lie in files of their own.
func smallFiles(t testing.TB, dir string) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite, Tune: rocks.Tuning{TargetFileSize: 8 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Every key written again as it is, into a table of its own over the old one, so that
	// the compaction rewrites both (one file that overlaps nothing is moved down whole, cut
	// into nothing).
	b := rocks.NewBatch()
	err = st.Scan(format.CFIndex, nil, nil, rocks.ReadOpts{}, func(k, v []byte) error {
		b.Put(format.CFIndex, bytes.Clone(k), bytes.Clone(v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(format.CFIndex); err != nil {
		t.Fatal(err)
	}
	if err := st.CompactRange(format.CFIndex); err != nil {
		t.Fatal(err)
	}
}

// The commit replaces the index family whole: not one of its old table files is left (in
// any level: the store's last, or L0 for what a node left in its memtable and the open
// flushed), every file of it is in the last level, and nothing is left to compact: no
// compaction runs after the commit, and the store reads as the steps leave it. With
// compactions off, nothing but the commit could have taken the old files out.
func TestBulkReplacesTheIndexFamily(t *testing.T) {
	for _, c := range []struct {
		name       string
		g          genSpec
		smallFiles bool
		tableBytes int
	}{
		{name: "one file", g: genSpec{seed: 58, hooks: 400, tenants: 9, now: testNow}},
		{name: "findings", g: genSpec{seed: 59, hooks: 60, tenants: 2, now: testNow, missing: 0.1, nilTenant: 0.2}},
		{name: "new files of 4 KiB", g: genSpec{seed: 58, hooks: 400, tenants: 9, now: testNow}, tableBytes: 4 << 10},
		{name: "old files of 8 KiB", g: genSpec{seed: 61, hooks: 3000, tenants: 30, now: testNow, missing: 0.02}, smallFiles: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := makeV2(t, c.g)
			if c.smallFiles {
				smallFiles(t, src)
			}
			// A key the node left in the WAL: the open replays it into the memtable.
			st, err := rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadWrite})
			if err != nil {
				t.Fatal(err)
			}
			b := rocks.NewBatch()
			b.Put(format.CFIndex, []byte("b1"), []byte("of no family"))
			if err := st.Write(b, true); err != nil {
				t.Fatal(err)
			}
			st.Close()
			stepsDir, bulkDir := storetest.CopyStore(t, src), storetest.CopyStore(t, src)
			mustMigrate(t, stepsDir, Options{})

			st, err = rocks.OpenStore(bulkDir, rocks.Options{Mode: rocks.ReadWrite, Tune: rocks.Tuning{DisableAutoCompactions: true, Statistics: true}})
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Flush(format.CFIndex); err != nil {
				t.Fatal(err)
			}
			old, err := st.FileLevels(format.CFIndex)
			if err != nil {
				t.Fatal(err)
			}
			if c.smallFiles && len(old) < 8 {
				t.Fatalf("%d files of the old index: too few to tell", len(old))
			}
			if _, err := RunBulk(context.Background(), st, Options{Now: testStart, tableBytes: c.tableBytes}); err != nil {
				t.Fatal(err)
			}
			files, err := st.FileLevels(format.CFIndex)
			if err != nil {
				t.Fatal(err)
			}
			read, _ := st.Ticker("rocksdb.compact.read.bytes")
			pending, err := st.Property(format.CFIndex, "rocksdb.estimate-pending-compaction-bytes")
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Level != rocks.NumLevels-1 {
					t.Errorf("a file of the index, %q .. %q, in L%d: want the last level", f.Smallest, f.Largest, f.Level)
				}
				for _, o := range old {
					if f.Name == o.Name {
						t.Errorf("an old file of the index, %s (%q .. %q), is still in the store", o.Name, o.Smallest, o.Largest)
					}
				}
			}
			if c.tableBytes > 0 && len(files) < 4 {
				t.Errorf("%d files of the index in files of %d bytes, want several", len(files), c.tableBytes)
			}
			if read > 0 || pending != "0" {
				t.Errorf("compactions read %d bytes, %s bytes pending: want none", read, pending)
			}
			storetest.AssertSame(t, storetest.Dump(t, stepsDir), storetest.Dump(t, bulkDir))
		})
	}
}
