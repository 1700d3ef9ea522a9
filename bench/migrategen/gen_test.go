package main

import (
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// The tables method writes the store the batches write, key for key in every family, from
// the same seed and flags: with the due and dead keys sorted in many runs, most of them
// spilled to the runs' file and merged back, and every family cut into several tables. A
// run of keys left out of the merge, a table left out of the ingest, a key written with
// another value: the stores differ and the test says where.
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
			st.Close()
			if err != nil {
				t.Fatal(err)
			}

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
