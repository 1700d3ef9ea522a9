package inspect

import (
	"errors"
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// ErrNoSuchTenant: the tenant a view was asked for has no n row (format 3)
// or no row at all (format 2).
var ErrNoSuchTenant = errors.New("no such tenant")

// TenantScanFamilies are the key families whose keys lead with a tenant
// ordinal (after their prefix byte, if any): one tenant is one range of them.
var TenantScanFamilies = []string{format.FamilyNameDue, format.FamilyNameInflight, format.FamilyNameDeadByTenant,
	format.FamilyNameCounters, format.FamilyNameTenantByOrd}

// TenantRange resolves tenant to its ordinal (its n row) and returns the
// range [lo, hi) of target holding that ordinal's keys. A target that is not
// tenant-keyed is an error; an unknown tenant is ErrNoSuchTenant.
func TenantRange(st *rocks.Store, target, tenant string) (lo, hi []byte, ord uint32, err error) {
	_, fam, err := scanTarget(target)
	if err != nil {
		return nil, nil, 0, err
	}
	if fam == nil || !slicesContains(TenantScanFamilies, fam.Name) {
		return nil, nil, 0, fmt.Errorf("--tenant scans a tenant-keyed family (%v), not %s", TenantScanFamilies, target)
	}
	if st.Format != format.Format3 || st.Migrating {
		return nil, nil, 0, fmt.Errorf("--tenant needs a format 3 store (this one is %s): format 2 keys carry no tenant", statusState(st))
	}
	ord, err = TenantOrd(st.DB, tenant)
	if err != nil {
		return nil, nil, 0, err
	}
	lo, hi = fam.TenantSpan(ord)
	return lo, hi, ord, nil
}

// TenantOrd reads the ordinal of tenant from its n row.
func TenantOrd(db *rocks.DB, tenant string) (uint32, error) {
	if !format.ValidTenantID([]byte(tenant)) {
		return 0, fmt.Errorf("%q is not a tenant id (1 to %d bytes of UTF-8)", tenant, format.MaxTenantIDLen)
	}
	v, ok, err := db.Get(format.CFTenants, format.OrdByTenantKey{Tenant: tenant}.Encode())
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%w: %q has no n row in this store (never seen, or erased)", ErrNoSuchTenant, tenant)
	}
	ord, err := format.DecodeU32(v)
	if err != nil {
		return 0, fmt.Errorf("%w: the n row of %q is %x: %v", rocks.ErrCorrupt, tenant, v, err)
	}
	return ord, nil
}

// TenantOfOrd names the tenant behind ord from its t row: ok is false when
// there is none; an erased tenant is "(erased)".
func TenantOfOrd(db *rocks.DB, ord uint32) (name string, ok bool, err error) {
	v, found, err := db.Get(format.CFTenants, format.TenantByOrdKey{Ord: ord}.Encode())
	if err != nil || !found {
		return "", false, err
	}
	if len(v) == 0 {
		return "(erased)", true, nil
	}
	return string(v), true, nil
}

func statusState(st *rocks.Store) string {
	if st.Migrating {
		return "mid-migration"
	}
	return fmt.Sprintf("format %d", st.Format)
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
