package inspect

import (
	"bytes"
	"context"
	"errors"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The streamed listing prints `matched` before its first row, so it counts
// the tenant-by-ordinal rows before it lists them, and nothing else can be
// written meanwhile: at 10^6 tenants that count was a sixth of the
// listing's time. It is therefore read one key at a time with nothing copied,
// and in two halves side by side, split at the middle ordinal.

// tenantsCountSplitMin is the number of ordinals worth a second reader.
const tenantsCountSplitMin = 1 << 16

// tenantsCount counts the t rows a listing shows (decodable; tombstones only
// with all), as the join will meet them. A missing sentinel fails as a fold
// of the family does (*rocks.CutShortError).
func tenantsCount(ctx context.Context, db *rocks.DB, all bool) (int, error) {
	f := format.FamTenantByOrd
	end := format.Successor(f.Hi)
	mid, err := tenantsMidKey(db)
	if err != nil {
		return 0, err
	}
	if mid == nil {
		return tenantsCountRange(ctx, db, all, f.Lo, end)
	}
	var (
		n2   int
		err2 error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		n2, err2 = tenantsCountRange(ctx, db, all, mid, end)
	}()
	n1, err1 := tenantsCountRange(ctx, db, all, f.Lo, mid)
	<-done
	if err1 != nil {
		return 0, err1
	}
	return n1 + n2, err2
}

// tenantsMidKey is the t key of the middle ordinal below the family's last
// row, nil when the family is too small to split.
func tenantsMidKey(db *rocks.DB) ([]byte, error) {
	f := format.FamTenantByOrd
	var last uint32
	err := db.ScanReverse(f.CF, f.Lo, f.Hi, rocks.ReadOpts{}, func(k, _ []byte) error {
		if tk, err := format.DecodeTenantByOrdKey(k); err == nil {
			last = tk.Ord
		}
		return rocks.Stop
	})
	if err != nil || last < tenantsCountSplitMin {
		return nil, err
	}
	return format.TenantByOrdKey{Ord: last / 2}.Encode(), nil
}

// tenantsCountRange counts the shown t rows in [lo, hi). A range from the
// family's lo must start at its lo sentinel, one past its hi must reach its
// hi sentinel; sentinels are not counted.
func tenantsCountRange(ctx context.Context, db *rocks.DB, all bool, lo, hi []byte) (int, error) {
	f := format.FamTenantByOrd
	needLo, needHi := bytes.Equal(lo, f.Lo), bytes.Compare(hi, f.Hi) > 0
	n, keys := 0, 0
	sawHi := false
	var last []byte
	err := db.Scan(f.CF, lo, hi, rocks.ReadOpts{}, func(k, v []byte) error {
		if keys++; keys == 1 && needLo {
			if !bytes.Equal(k, f.Lo) {
				return &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: format.SentinelLo}
			}
			return nil
		}
		if keys%walkMaxChunk == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if bytes.Equal(k, f.Hi) {
			sawHi = true
			return rocks.Stop
		}
		last = append(last[:0], k...)
		if _, err := format.DecodeTenantByOrdKey(k); err == nil && (len(v) > 0 || all) {
			n++
		}
		return nil
	})
	switch {
	case err != nil:
		var cs *rocks.CutShortError
		if needLo && keys == 0 && !errors.As(err, &cs) {
			return 0, &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: format.SentinelLo, Err: err}
		}
		return 0, err
	case needLo && keys == 0:
		return 0, &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: format.SentinelLo}
	case needHi && !sawHi:
		return 0, &rocks.CutShortError{Family: f.Name, CF: f.CF, Missing: format.SentinelHi, LastKey: last}
	}
	return n, nil
}
