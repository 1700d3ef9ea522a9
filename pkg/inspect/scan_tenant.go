package inspect

import (
	"fmt"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// TenantScanFamilies are the key families whose keys lead with a tenant
// ordinal (after their prefix byte, if any): one tenant is one range of them.
var TenantScanFamilies = []string{format.FamilyNameDue, format.FamilyNameInflight, format.FamilyNameDeadByTenant,
	format.FamilyNameCounters, format.FamilyNameTenantByOrd}

// TenantRange returns the range [lo, hi) of target holding the keys of tenant t (its
// ordinal's). A target that is not tenant-keyed, or a store without ordinals, is an error.
func TenantRange(st *rocks.Store, target string, t format.Tenant) (lo, hi []byte, err error) {
	_, fam, err := scanTarget(target)
	if err != nil {
		return nil, nil, err
	}
	if fam == nil || !slicesContains(TenantScanFamilies, fam.Name) {
		return nil, nil, fmt.Errorf("--tenant scans a tenant-keyed family (%v), not %s", TenantScanFamilies, target)
	}
	if st.Format != format.Format3 || st.Migrating {
		return nil, nil, fmt.Errorf("--tenant needs a format 3 store (this one is %s): format 2 keys carry no tenant", statusState(st))
	}
	lo, hi = fam.TenantSpan(t.Ord)
	return lo, hi, nil
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
