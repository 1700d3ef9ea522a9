package tenantjoin

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// rawStore is a format 3 store holding what put writes (beside the sentinels
// of every family), opened read-only.
func rawStore(t *testing.T, put func(b *rocks.Batch)) *rocks.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "store")
	st := storetest.Create(t, dir, format.Format3, rocks.Tuning{})
	w := storetest.NewWriter(format.Format3)
	put(w.B)
	w.Commit(t, st, true)
	st.Close()
	return storetest.OpenReadOnly(t, dir)
}

// tFamily writes n t rows (every seventh a tombstone) and a stray in the
// family's range that does not decode on each side of its middle.
func tFamily(b *rocks.Batch, n uint32) {
	f := format.FamTenantByOrd
	for o := uint32(1); o <= n; o++ {
		name := []byte(fmt.Sprintf("t-%d", o))
		if o%7 == 0 {
			name = nil // a tombstone
		}
		b.Put(f.CF, format.TenantByOrdKey{Ord: o}.Encode(), name)
	}
	b.Put(f.CF, []byte{format.PrefixTenantByOrd, 0, 0, 1}, []byte("stray"))
	b.Put(f.CF, append(format.TenantByOrdKey{Ord: n / 2}.Encode(), 0), []byte("stray"))
}

// The count of the streamed listing, read in two halves above
// Sizes.SplitMin ordinals, must be what one fold of the family counts,
// and must fail as a fold does when a sentinel is missing.
func TestTenantsCountIsAFoldsCount(t *testing.T) {
	splitMin := DefaultSizes().SplitMin
	for _, n := range []uint32{5, 2*splitMin + 3} {
		for _, missing := range []string{"", format.SentinelLo, format.SentinelHi} {
			t.Run(fmt.Sprintf("%d tenants, missing %q", n, missing), func(t *testing.T) {
				f := format.FamTenantByOrd
				st := rawStore(t, func(b *rocks.Batch) {
					tFamily(b, n)
					switch missing {
					case format.SentinelLo:
						b.Delete(f.CF, f.Lo)
					case format.SentinelHi:
						b.Delete(f.CF, f.Hi)
					}
				})
				if mid, err := midKey(st.DB, splitMin); err != nil || (mid != nil) != (n > splitMin) {
					t.Fatalf("split at %x (%v): the big store must be counted in two halves, the small one in one", mid, err)
				}
				for _, all := range []bool{false, true} {
					got, _, err := Count(context.Background(), st.DB, all, Sizes{})
					want := 0
					werr := st.DB.Fold(f, rocks.ReadOpts{}, func(k, v []byte) error {
						if _, err := format.DecodeTenantByOrdKey(k); err == nil && (len(v) > 0 || all) {
							want++
						}
						return nil
					})
					var cs, wcs *rocks.CutShortError
					if missing != "" {
						if !errors.As(err, &cs) || !errors.As(werr, &wcs) || cs.Missing != wcs.Missing || cs.Family != wcs.Family ||
							!errors.Is(err, rocks.ErrCorrupt) {
							t.Errorf("all=%v: got %v, want %v", all, err, werr)
						}
						continue
					}
					if err != nil || werr != nil || got != want {
						t.Errorf("all=%v: counted %d (%v), a fold counts %d (%v)", all, got, err, want, werr)
					}
				}
			})
		}
	}
}

// What the count holds for the join, served by pullHeld, is what walk.PullFamily
// reads of the t rows, entry for entry (strays and tombstones included),
// whether the count held all of it, some of each half (the rest read from
// the store again) or none.
func TestTenantsHeldIsTheFamilysRead(t *testing.T) {
	splitMin := DefaultSizes().SplitMin
	for _, n := range []uint32{5, 2*splitMin + 3} {
		f := format.FamTenantByOrd
		st := rawStore(t, func(b *rocks.Batch) { tFamily(b, n) })
		want := drainCursor(t, walk.PullFamily(context.Background(), st.DB, f))
		for _, hold := range []int{0, 100, 64 << 10, 32 << 20} {
			_, held, err := Count(context.Background(), st.DB, true, Sizes{SplitMin: splitMin, HoldMax: hold})
			if err != nil {
				t.Fatal(err)
			}
			cut := 0
			for _, h := range held.halves {
				if h.rest != nil {
					cut++
				}
			}
			if n > splitMin && hold == 64<<10 && (cut != 2 || len(held.halves[0].fills) == 0 || len(held.halves[1].fills) == 0) {
				t.Fatalf("hold %d: %d halves cut, want both, each with fills held", hold, cut)
			}
			got := drainCursor(t, pullHeld(context.Background(), st.DB, held))
			if got != want {
				t.Fatalf("%d tenants, hold %d (%d halves, %d cut): the held read differs from the family's:\n%.300s\nwant\n%.300s",
					n, hold, len(held.halves), cut, got, want)
			}
		}
	}
}

// drainCursor is every entry of c, one a line.
func drainCursor(t *testing.T, c *walk.Cursor) string {
	t.Helper()
	defer c.Close()
	var b strings.Builder
	for e := c.Peek(); e != nil; e = c.Peek() {
		fmt.Fprintf(&b, "%x=%x %v\n", e.K, e.V, e.Err)
		c.Advance()
	}
	if c.Err() != nil {
		t.Fatal(c.Err())
	}
	return b.String()
}
