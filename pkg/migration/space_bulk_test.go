package migration

import (
	"context"
	"testing"

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
