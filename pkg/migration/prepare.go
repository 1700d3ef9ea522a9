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
	prepareWrites(startedAt, func(cf string, key, val []byte) { b.Put(cf, key, val) })
	return st.Write(b, true)
}

// prepareWrites makes the preparation's puts: the new families' sentinels, m:next_ord and the
// cursor with the start time. The bulk method writes them too, before the steps' writes, so
// that its tables hold what the steps leave.
func prepareWrites(startedAt uint64, put func(cf string, key, val []byte)) {
	for _, f := range newFamilies {
		put(f.CF, f.Lo, nil)
		put(f.CF, f.Hi, nil)
	}
	put(format.CFDefault, []byte(format.KeyNextOrd), format.EncodeU32(format.FirstOrd))
	put(format.CFDefault, []byte(format.KeyMigrating3), format.MigrationCursor{Phase: format.MigPhaseDue}.Encode())
	put(format.CFDefault, []byte(format.KeyMigrating3Now), format.EncodeU64(startedAt))
}
