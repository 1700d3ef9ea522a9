package migration

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/runs"
	"github.com/ankusa/ankusa-store/internal/slots"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/diskspace"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The bulk method's estimate bounds the rows by the index family's table properties where
// few of its entries are deletions: then it is at or above the count's estimate (the rows
// it moves are among the entries) and close to it. Where more than one entry in a hundred
// is a deletion, or one is a range deletion, it is the count's. A dry run's and status's
// figure (BulkSpace, from the count they make) is the run's (EstimateBulkSpace) every time.
func TestEstimateBulkSpaceBoundsOrCounts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		churn   func(t *testing.T, st *rocks.Store, entries int64) // rows a node's queue delivered and deleted, in the files
		bounded bool
	}{
		{"as written", nil, true},
		{"a deletion in 400 entries", churn(400), true},
		{"a deletion in 20 entries", churn(20), false},
		{"a range deletion", func(t *testing.T, st *rocks.Store, _ int64) {
			b := rocks.NewBatch()
			b.DeleteRange(format.CFIndex, format.DueV2Key{At: 1, Seq: 1}.Encode(), format.DueV2Key{At: 2, Seq: 1}.Encode())
			commitFlushed(t, st, b)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeV2(t, genSpec{seed: 33, hooks: 3000, tenants: 40, now: testNow})
			if tc.churn != nil {
				st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
				if err != nil {
					t.Fatal(err)
				}
				tr, err := st.TableRows(format.CFIndex)
				if err != nil {
					t.Fatal(err)
				}
				tc.churn(t, st, tr.Entries)
				if err := st.Close(); err != nil {
					t.Fatal(err)
				}
			}
			st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			tr, err := st.TableRows(format.CFIndex, phaseRanges()...)
			if err != nil {
				t.Fatal(err)
			}
			// The index keys outside the four families (their sentinels, the families
			// carried through untouched), which files reaching into them may hold too.
			var others int64
			if err := st.Scan(format.CFIndex, nil, nil, rocks.ReadOpts{}, func(k, _ []byte) error {
				moved := false
				for _, p := range RowPhases {
					moved = moved || p.family().Contains(k)
				}
				if !moved {
					others++
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			counted, err := EstimateSpace(ctx, st, format.MigrationCursor{Phase: uint8(PhaseDue)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := EstimateBulkSpace(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			via, err := BulkSpace(st, counted)
			if err != nil {
				t.Fatal(err)
			}
			if got != via {
				t.Fatalf("the run's estimate %+v, a dry run's %+v", got, via)
			}
			want := counted.Bulk()
			t.Logf("%+v, %d other keys: bulk estimate %d rows, %d bytes, %d needed; counted %d rows, %d bytes, %d needed",
				tr, others, got.Rows, got.RowBytes, got.Migration, want.Rows, want.RowBytes, want.Migration)
			switch {
			case got.RowsBound != tc.bounded:
				t.Fatalf("bounded %v, want %v", got.RowsBound, tc.bounded)
			case !tc.bounded && got != want:
				t.Fatalf("%+v, want the count's %+v", got, want)
			case !tc.bounded:
			case got.Rows < want.Rows || got.RowBytes < want.RowBytes || got.Migration < want.Migration:
				t.Fatalf("the bound is below the count: %+v against %+v", got, want)
			// Above by the deleted rows at most, and the other keys in the same files.
			case got.Rows > want.Rows+tr.Deletions+others:
				t.Fatalf("the bound, %d rows, is not close to the count, %d, with %d deletions and %d other keys", got.Rows, want.Rows, tr.Deletions, others)
			}
		})
	}
}

// churn deletes a due row for each every-th entry of the index family's: rows put, flushed,
// then deleted and flushed, as a node's queue leaves them between compactions.
func churn(every int64) func(t *testing.T, st *rocks.Store, entries int64) {
	return func(t *testing.T, st *rocks.Store, entries int64) {
		put, del := rocks.NewBatch(), rocks.NewBatch()
		for i := range entries / every {
			k := format.DueV2Key{At: 1, Seq: uint64(1 + i), Sink: 0}.Encode()
			put.Put(format.CFIndex, k, format.EncodeSize(100))
			del.Delete(format.CFIndex, k)
		}
		commitFlushed(t, st, put)
		commitFlushed(t, st, del)
	}
}

func commitFlushed(t *testing.T, st *rocks.Store, b *rocks.Batch) {
	t.Helper()
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	if err := st.Flush(format.CFIndex); err != nil {
		t.Fatal(err)
	}
}

// The bulk method's joins spill their runs to the temporary directory: its figure is in
// the estimate (none for a store small enough that the joins keep their runs in memory),
// counted in what the store's file system needs when $TMPDIR is on it, and checked on its
// own when it is another (a real tmpfs too small for it: the run's refusal names it). A run
// whose joins spill everything puts at most the figure's bytes a row there.
func TestBulkSpaceCountsTheJoinsTemporaryRuns(t *testing.T) {
	if held := 2*runs.DefaultLimits().SpillAfter + 2*slots.DefaultLimits().SpillAfter; joinTempHeld != held {
		t.Fatalf("joinTempHeld %d is not what the joins' two runs and two tables of answers keep in memory, %d", joinTempHeld, held)
	}
	if e := (SpaceEstimate{Rows: 1000, RowBytes: 30_000}).Bulk(); e.JoinTemp != 0 {
		t.Errorf("1,000 rows: the joins' runs in $TMPDIR %d bytes, want none (kept in memory)", e.JoinTemp)
	}
	est := SpaceEstimate{Rows: 10_000_000, RowBytes: 300_000_000}.Bulk()
	if want := int64(joinTempRowBytes*10_000_000 - joinTempHeld); est.JoinTemp != want {
		t.Fatalf("10^7 rows: the joins' runs %d bytes, want %d", est.JoinTemp, want)
	}
	store := t.TempDir()
	t.Setenv("TMPDIR", t.TempDir())
	same, err := NeedSpace(est, store, "")
	if err != nil {
		t.Fatal(err)
	}
	if same.Needed != est.Migration+est.JoinTemp || same.TempElsewhereBytes != 0 || same.TempDir != os.TempDir() {
		t.Errorf("$TMPDIR beside the store: needed %d (the migration %d, the joins %d), elsewhere %d, in %q",
			same.Needed, est.Migration, est.JoinTemp, same.TempElsewhereBytes, same.TempDir)
	}
	small := storetest.MountTmpfs(t, 1<<20)
	t.Setenv("TMPDIR", small)
	other, err := NeedSpace(est, store, "")
	if err != nil {
		t.Fatal(err)
	}
	if other.Needed != est.Migration || other.TempElsewhereBytes != est.JoinTemp || other.TempDir != small {
		t.Errorf("$TMPDIR on a tmpfs: needed %d (the migration %d), elsewhere %d (the joins %d), in %q",
			other.Needed, est.Migration, other.TempElsewhereBytes, est.JoinTemp, other.TempDir)
	}
	var short *diskspace.ShortError
	if err := other.Check(); !errors.As(err, &short) || short.Where != small || !strings.Contains(short.What, "joins") {
		t.Errorf("a 1 MiB $TMPDIR for %d bytes of the joins' runs: %v", est.JoinTemp, err)
	}

	// Measured: every run and every answer spilled, the bytes a row against the figure's.
	src := makeV2(t, genSpec{seed: 61, hooks: 3000, tenants: 200, now: testNow, missing: 0.02})
	answers := slots.DefaultLimits()
	answers.SpillAfter = 64
	sum := migrateBulk(t, storetest.CopyStore(t, src), Options{joinRuns: runs.Limits{SpillAfter: 64, ReadBuf: runs.DefaultLimits().ReadBuf}, joinSlots: answers})
	if sum.StagedJoin == 0 || sum.StagedJoin > joinTempRowBytes*sum.Rows() {
		t.Errorf("the joins spilled %d bytes for %d rows, want some and at most %d a row", sum.StagedJoin, sum.Rows(), joinTempRowBytes)
	}
	t.Logf("the joins spilled %d bytes for %d rows (%.1f a row)", sum.StagedJoin, sum.Rows(), float64(sum.StagedJoin)/float64(sum.Rows()))
}
