package migration

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The phases counted at once are the phases counted one after another, rows and bytes, from
// the start and from cursors in each phase (strays counted, the cursor's own key not).
func TestScanLeftIsOnePass(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 63, hooks: 300, tenants: 7, now: testNow, missing: 0.05})
	storetest.AddStrays(t, dir)
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cursors := []format.MigrationCursor{{Phase: uint8(PhaseDue)}}
	for _, p := range RowPhases {
		fam := p.family()
		i := 0
		if err := st.ScanKeys(fam.CF, fam.Lo, fam.Hi, rocks.ReadOpts{}, func(k []byte) error {
			if i++; i == 7 {
				cursors = append(cursors, format.MigrationCursor{Phase: uint8(p), LastKey: append([]byte(nil), k...)})
				return rocks.Stop
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cursors {
		rows, bytes, err := scanLeft(context.Background(), st, c)
		if err != nil {
			t.Fatal(err)
		}
		var wantRows, wantBytes [numRowPhases]int64
		var failed atomic.Bool
		for _, p := range RowPhases {
			if Phase(c.Phase) > p {
				continue
			}
			if wantRows[p-1], wantBytes[p-1], err = scanPhaseLeft(context.Background(), st, c, p, &failed); err != nil {
				t.Fatal(err)
			}
		}
		if rows != wantRows || bytes != wantBytes {
			t.Errorf("from phase %d after %x: rows %v bytes %v at once, %v and %v one by one", c.Phase, c.LastKey, rows, bytes, wantRows, wantBytes)
		}
		if wantRows[PhaseArchive-1] == 0 || wantRows[PhaseDue-1] == 0 && c.Phase == uint8(PhaseDue) {
			t.Errorf("from phase %d: rows %v: the store leaves a phase empty", c.Phase, wantRows)
		}
	}
}

// The count reads the index's table files half a MiB at a time, as the bulk method's scans
// do: far fewer reads than the index's blocks.
func TestScanLeftReadsAhead(t *testing.T) {
	src := makeV2(t, genSpec{seed: 71, hooks: 12000, tenants: 40, now: testNow})
	st, err := rocks.OpenStore(src, rocks.Options{Mode: rocks.ReadWrite, Tune: rocks.Tuning{Statistics: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Flush(format.CFIndex); err != nil {
		t.Fatal(err)
	}
	stats, err := st.FamilyStats()
	if err != nil {
		t.Fatal(err)
	}
	var blocks uint64
	for _, fs := range stats {
		if fs.Name == format.CFIndex {
			blocks = fs.SSTBytes / (8 << 10)
		}
	}
	if blocks < 40 {
		t.Fatalf("the index is %d blocks of 8 KiB: too small to tell", blocks)
	}
	at := fileReads(t, st)
	if _, _, err := scanLeft(context.Background(), st, format.MigrationCursor{Phase: uint8(PhaseDue)}); err != nil {
		t.Fatal(err)
	}
	if reads := fileReads(t, st) - at; reads >= blocks/2 {
		t.Errorf("the count read table files %d times, want fewer than %d (half the index's blocks of 8 KiB)", reads, blocks/2)
	} else {
		t.Logf("%d reads of table files; the index is %d blocks of 8 KiB", reads, blocks)
	}
}
