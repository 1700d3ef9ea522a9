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

// deletedFiles are the index family's files of level 1 and below that lie whole in a range
// the finish deletes.
func deletedFiles(t testing.TB, dir string) []rocks.FileLevel {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	files, err := st.FileLevels(format.CFIndex)
	if err != nil {
		t.Fatal(err)
	}
	var in []rocks.FileLevel
	for _, f := range files {
		for _, sp := range finishSpans {
			if f.Level > 0 && bytes.Compare(f.Smallest, sp[0]) >= 0 && bytes.Compare(f.Largest, sp[1]) < 0 {
				in = append(in, f)
			}
		}
	}
	return in
}

// The old due and inflight rows' files leave the store with the commit, unread: with
// compactions off, nothing else could take them out. The store reads as the steps leave it.
func TestBulkDropsTheOldRowsFiles(t *testing.T) {
	src := makeV2(t, genSpec{seed: 61, hooks: 3000, tenants: 30, now: testNow, missing: 0.02})
	smallFiles(t, src)
	old := deletedFiles(t, src)
	if len(old) < 4 {
		t.Fatalf("%d files of the old rows alone: too few to tell", len(old))
	}
	stepsDir, bulkDir := storetest.CopyStore(t, src), storetest.CopyStore(t, src)
	mustMigrate(t, stepsDir, Options{})

	st, err := rocks.OpenStore(bulkDir, rocks.Options{Mode: rocks.ReadWrite, Tune: rocks.Tuning{DisableAutoCompactions: true}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RunBulk(context.Background(), st, Options{Now: testStart}); err != nil {
		t.Fatal(err)
	}
	files, err := st.FileLevels(format.CFIndex)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, o := range old {
			if f.Level == o.Level && bytes.Equal(f.Smallest, o.Smallest) && bytes.Equal(f.Largest, o.Largest) {
				t.Errorf("a file of old rows only, %q .. %q in L%d, is still in the store", f.Smallest, f.Largest, f.Level)
			}
		}
	}
	storetest.AssertSame(t, storetest.Dump(t, stepsDir), storetest.Dump(t, bulkDir))
}
