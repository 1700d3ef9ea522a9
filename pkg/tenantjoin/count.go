package tenantjoin

import (
	"bytes"
	"context"
	"errors"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// The streamed listing prints `matched` before its first row, so it counts
// the tenant-by-ordinal rows before it lists them, and nothing else can be
// written meanwhile: at 10^6 tenants that count was a sixth of the
// listing's time. It is read in two halves side by side, split at the middle
// ordinal, and what it reads is held (Held, up to Sizes.HoldMax bytes) for
// the join, which then reads t from memory: the listing reads the family
// once, not twice (a tenth of its CPU at 10^6 tenants).

// Sizes are the count's thresholds; the tests make them small. The zero
// Sizes is DefaultSizes.
type Sizes struct {
	// SplitMin is the number of ordinals worth a second reader.
	SplitMin uint32
	// HoldMax is the most bytes of t rows the count holds for the join, half
	// for each half of the family: at 10^6 tenants of names of 13 bytes the
	// family is 17 MB. Past it the join reads the rest of a half from the
	// store.
	HoldMax int
}

// DefaultSizes is the sizes a listing is counted with.
func DefaultSizes() Sizes { return Sizes{SplitMin: 1 << 16, HoldMax: 32 << 20} }

// Held is what the count read of the t rows, for the join: each half of the
// family in order, its fills up to the half's share of Sizes.HoldMax, and
// where the store must be read again for the rest.
type Held struct {
	halves []heldHalf
}

type heldHalf struct {
	fills []*rocks.Fill // detached: memory of their own, freed as the join goes
	rest  []byte        // the first key not held, read from the store up to hi; nil when all is held
	hi    []byte        // the half's end (exclusive)
}

// Count counts the t rows a listing shows (decodable; tombstones only with
// all), as the join will meet them, and holds what it read for the join
// (Held, for Run). A missing sentinel fails as a fold of the family does
// (*rocks.CutShortError).
func Count(ctx context.Context, db *rocks.DB, all bool, sizes Sizes) (int, *Held, error) {
	if sizes == (Sizes{}) {
		sizes = DefaultSizes()
	}
	f := format.FamTenantByOrd
	end := format.Successor(f.Hi)
	mid, err := midKey(db, sizes.SplitMin)
	if err != nil {
		return 0, nil, err
	}
	if mid == nil {
		n, h, err := countRange(ctx, db, all, f.Lo, end, sizes.HoldMax)
		if err != nil {
			return 0, nil, err
		}
		return n, &Held{halves: []heldHalf{h}}, nil
	}
	var (
		n2   int
		h2   heldHalf
		err2 error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		n2, h2, err2 = countRange(ctx, db, all, mid, end, sizes.HoldMax/2)
	}()
	n1, h1, err1 := countRange(ctx, db, all, f.Lo, mid, sizes.HoldMax/2)
	<-done
	if err1 != nil {
		return 0, nil, err1
	}
	if err2 != nil {
		return 0, nil, err2
	}
	return n1 + n2, &Held{halves: []heldHalf{h1, h2}}, nil
}

// midKey is the t key of the middle ordinal below the family's last row, nil
// when the family has fewer than splitMin ordinals.
func midKey(db *rocks.DB, splitMin uint32) ([]byte, error) {
	f := format.FamTenantByOrd
	var last uint32
	err := db.ScanReverse(f.CF, f.Lo, f.Hi, rocks.ReadOpts{}, func(k, _ []byte) error {
		if tk, err := format.DecodeTenantByOrdKey(k); err == nil {
			last = tk.Ord
		}
		return rocks.Stop
	})
	if err != nil || last < splitMin {
		return nil, err
	}
	return format.TenantByOrdKey{Ord: last / 2}.Encode(), nil
}

// countRange counts the shown t rows in [lo, hi) and holds the fills
// it read while they fit in hold bytes. A range from the family's lo must
// start at its lo sentinel, one past its hi must reach its hi sentinel;
// sentinels are not counted.
func countRange(ctx context.Context, db *rocks.DB, all bool, lo, hi []byte, hold int) (int, heldHalf, error) {
	f := format.FamTenantByOrd
	needLo, needHi := bytes.Equal(lo, f.Lo), bytes.Compare(hi, f.Hi) > 0
	n, keys, held := 0, 0, 0
	sawHi := false
	var last []byte
	h := heldHalf{hi: hi}
	var stopped error // the context's, not the family's: no key read yet is no sentinel missing
	err := db.ScanFills(f.CF, lo, hi, rocks.ReadOpts{}, func(fl *rocks.Fill) error {
		if stopped = ctx.Err(); stopped != nil {
			fl.Release()
			return stopped
		}
		var lastK []byte
		for i, off := 0, 0; i < fl.Len(); i++ {
			k, v, next := fl.Entry(off)
			off = next
			if keys++; keys == 1 && needLo {
				if !bytes.Equal(k, f.Lo) {
					fl.Release()
					return &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: format.SentinelLo}
				}
				continue
			}
			if bytes.Equal(k, f.Hi) {
				// The range's last key: hi is past the family's end.
				sawHi = true
				break
			}
			lastK = k
			if _, err := format.DecodeTenantByOrdKey(k); err == nil && (len(v) > 0 || all) {
				n++
			}
		}
		if lastK != nil {
			last = append(last[:0], lastK...)
		}
		if h.rest == nil && held+fl.Size() <= hold {
			held += fl.Size()
			fl.Detach()
			h.fills = append(h.fills, fl)
			return nil
		}
		if h.rest == nil {
			k, _, _ := fl.Entry(0)
			h.rest = bytes.Clone(k)
		}
		fl.Release()
		return nil
	})
	switch {
	case stopped != nil:
		return 0, heldHalf{}, stopped
	case err != nil:
		var cs *rocks.CutShortError
		if needLo && keys == 0 && !errors.As(err, &cs) {
			return 0, heldHalf{}, &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: format.SentinelLo, Err: err}
		}
		return 0, heldHalf{}, err
	case needLo && keys == 0:
		return 0, heldHalf{}, &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: format.SentinelLo}
	case needHi && !sawHi:
		return 0, heldHalf{}, &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: format.SentinelHi, LastKey: last}
	}
	return n, h, nil
}

// pullHeld is walk.PullFamily over the t rows for a join after Count: the
// held fills, and the store for what was not held. The count has checked the
// sentinels; they are not handed on.
func pullHeld(ctx context.Context, db *rocks.DB, held *Held) *walk.Cursor {
	f := format.FamTenantByOrd
	return walk.PullWith(func(to func(walk.Pulled) bool) error {
		gone := false
		send := func(p walk.Pulled) bool {
			gone = gone || !to(p)
			return !gone
		}
		for _, h := range held.halves {
			for _, fl := range h.fills {
				p := walk.Pulled{Fill: fl, N: fl.Len()}
				if k, _, next := fl.Entry(0); bytes.Equal(k, f.Lo) {
					p.Off, p.N = next, p.N-1
				}
				if k, _ := fl.Last(); p.N > 0 && bytes.Equal(k, f.Hi) {
					p.N--
				}
				if p.N == 0 {
					continue
				}
				if !send(p) {
					return nil
				}
			}
			if h.rest == nil {
				continue
			}
			lo, hi := h.rest, h.hi
			if bytes.Compare(lo, f.Lo) <= 0 {
				lo = format.Successor(f.Lo)
			}
			if bytes.Compare(hi, f.Hi) > 0 {
				hi = f.Hi
			}
			if err := walk.ReadPulled(ctx, db, walk.PullRange{CF: f.CF, Lo: lo, Hi: hi}, send); err != nil || gone {
				return err
			}
		}
		return nil
	})
}
