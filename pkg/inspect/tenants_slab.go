package inspect

import "time"

// rowSlab hands out the fields a TenantRow points to (its ordinal, its
// oldest due time and age) from blocks of rowSlabBlock, instead of three
// small allocations a row: at 10^6 tenants those, and the garbage collection
// they bring, were a tenth of the listing's Go time. A field keeps its block
// alive, so a row kept by its reader (a test, a --top listing) stays valid.
type rowSlab struct {
	ords []uint32
	ats  []time.Time
	ages []int64
}

const rowSlabBlock = 512

func (s *rowSlab) ord() *uint32   { return slabNext(&s.ords) }
func (s *rowSlab) at() *time.Time { return slabNext(&s.ats) }
func (s *rowSlab) age() *int64    { return slabNext(&s.ages) }

func slabNext[T any](block *[]T) *T {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, rowSlabBlock)
	}
	*block = (*block)[:len(*block)+1]
	return &(*block)[len(*block)-1]
}
