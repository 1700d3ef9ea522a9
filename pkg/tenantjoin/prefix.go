package tenantjoin

import (
	"bytes"
	"context"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/walk"
)

// ByPrefix reads the `n` rows whose tenant id starts with prefix, in id
// order, and calls fn with each one's ordinal and id: a range of the
// ordinal-by-tenant family, so a narrow prefix reads only its own tenants
// (a --prefix listing, which Run would answer by reading every tenant).
// Erased tenants have no `n` row and never match. bad counts the rows that
// did not decode, which are skipped.
func ByPrefix(ctx context.Context, db *rocks.DB, prefix string, fn func(ord uint32, id string)) (bad int64, err error) {
	lo := format.OrdByTenantKey{Tenant: prefix}.Encode()
	_, err = walk.Chunks(db, walk.Range{CF: format.CFTenants, Lo: lo, Hi: format.FamOrdByTenant.Hi}, func(chunk []walk.Entry) (bool, error) {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		for _, e := range chunk {
			if !bytes.HasPrefix(e.K, lo) {
				return true, nil
			}
			k, kerr := format.DecodeOrdByTenantKey(e.K)
			ord, verr := format.DecodeU32(e.V)
			if kerr != nil || verr != nil || e.Err != nil {
				bad++
				continue
			}
			fn(ord, k.Tenant)
		}
		return false, nil
	})
	return bad, err
}
