package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// The tables method writes the store the batches write, key for key in every family, from
// the same seed and flags: with the due and dead keys sorted in many runs, most of them
// spilled to the runs' file and merged back, and every family cut into several tables. A
// run of keys left out of the merge, a table left out of the ingest, a key written with
// another value: the stores differ and the test says where. The tables' store is also left
// at rest: no table in L0, no WAL to replay.
func TestTablesWriteTheStoreTheBatchesWrite(t *testing.T) {
	cases := []struct {
		name string
		o    options
	}{
		{"backlog", options{rows: 20_000, tenants: 300, seed: 1, bodyMin: 256, bodyMax: 767}},
		{"dead only, other seed", options{rows: 8_000, tenants: 50, seed: 7, bodyMin: 256, bodyMax: 767, deadOnly: true}},
		{"empty bodies, long tenant ids", options{rows: 12_000, tenants: 1_000, seed: 3, tenantBytes: 300}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.now = 1_796_032_800_000
			// Small runs, most spilled and read back a few bytes at a time, and small tables.
			o.runElems = 500
			o.runLimits = runs.Limits{SpillAfter: 2 << 10, ReadBuf: 256}
			o.tableBytes = 32 << 10
			dir := t.TempDir()

			o.method, o.dir = "batches", filepath.Join(dir, "batches")
			if err := generate(o); err != nil {
				t.Fatal(err)
			}
			o.method, o.dir = "tables", filepath.Join(dir, "tables")
			st, err := openNew(o)
			if err != nil {
				t.Fatal(err)
			}
			_, ts, err := writeTables(st, o)
			if err == nil {
				err = atRest(st)
			}
			if err == nil {
				checkLevels(t, st, ts)
			}
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			checkNoWAL(t, o.dir)

			sorted, spilled := ts.dueRuns+ts.deadRuns, ts.dueSpilled+ts.deadSpilled
			if sorted < 10 || spilled < sorted/2 {
				t.Errorf("%d runs of sorted keys, %d spilled: want 10 or more, most spilled", sorted, spilled)
			}
			for _, cf := range []string{format.CFHooks, format.CFDeliveries, format.CFIndex} {
				if len(ts.files[cf]) < 3 {
					t.Errorf("%s: %d table files, want several", cf, len(ts.files[cf]))
				}
			}
			storetest.AssertSame(t, storetest.Dump(t, filepath.Join(dir, "batches")), storetest.Dump(t, o.dir))
		})
	}
}

// checkLevels: the store at rest as a compacted one, every ingested table in its family's
// last level and no family with a table in L0 for the node to compact.
func checkLevels(t *testing.T, st *store.Handle, ts tablesStats) {
	t.Helper()
	fams, err := st.FamilyStats()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.FilesPerLevel[0] != 0 {
			t.Errorf("%s: %d tables in L0 at rest", f.Name, f.FilesPerLevel[0])
		}
		if n := len(ts.files[f.Name]); n > 0 && f.FilesPerLevel[rocks.NumLevels-1] != n {
			t.Errorf("%s: tables by level %v, want its %d ingested in the last", f.Name, f.FilesPerLevel, n)
		}
	}
}

// checkNoWAL: nothing left in a WAL for the next open to replay.
func checkNoWAL(t *testing.T, dir string) {
	t.Helper()
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		fi, err := os.Stat(l)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() != 0 {
			t.Errorf("WAL %s left with %d bytes", strings.TrimPrefix(l, dir), fi.Size())
		}
	}
}
