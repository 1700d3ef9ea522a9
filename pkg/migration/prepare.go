package migration

import (
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// newFamilies are the families the preparation writes sentinels for: the
// format 3 families that a format 2 store does not have.
var newFamilies = []format.Family{
	format.FamDue, format.FamInflight, format.FamDeadByTenant, format.FamActive,
	format.FamTenantByOrd, format.FamOrdByTenant, format.FamCounters,
}

// prepare creates the tenants and counters column families where they are
// missing (a run killed between creating them and the batch below left them
// behind, empty), then commits the preparation batch. Run calls it only for a
// store without m:migrating:3: the batch holds that key, so once it is
// committed the whole preparation is done.
func prepare(st *rocks.Store, startedAt uint64) error {
	for _, cf := range []string{format.CFTenants, format.CFCounters} {
		if !st.HasFamily(cf) {
			if err := st.CreateFamily(cf); err != nil {
				return err
			}
		}
	}
	b := rocks.NewBatch()
	for _, f := range newFamilies {
		b.Put(f.CF, f.Lo, nil)
		b.Put(f.CF, f.Hi, nil)
	}
	b.Put(format.CFDefault, []byte(format.KeyNextOrd), format.EncodeU32(format.FirstOrd))
	b.Put(format.CFDefault, []byte(format.KeyMigrating3), format.MigrationCursor{Phase: format.MigPhaseDue}.Encode())
	b.Put(format.CFDefault, []byte(format.KeyMigrating3Now), format.EncodeU64(startedAt))
	return st.Write(b, true)
}
