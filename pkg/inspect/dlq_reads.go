package inspect

import (
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// rowReads is where the dead-letter views read the rows their dead rows
// point at (delivery rows, hooks), by key, a page at a time: the store itself
// (storeReads), or, for a whole export, the values a sorted join has read
// ahead in key order (exportJoin). vals[i] and found[i] answer keys[i]; the
// values stay valid until the page that asked for them is done.
type rowReads interface {
	get(cf string, keys [][]byte) (vals [][]byte, found []bool, err error)
	// plans is true for reads that only record the keys asked for and find
	// nothing (the export's plan, exportPlan): the joins then fill nothing in,
	// since every row would only be told what it lacks.
	plans() bool
}

// storeReads reads by multi-get. A page of dlq scan fills the block cache
// (its rows are read again by the next look); an export or a stream reads
// each delivery row and hook once (once), whose blocks are not worth the
// cache, but a tenant's name again and again. Lookups at random want the
// store opened with its tables' indexes on the heap (an export opens it so
// again when it reads by key: DLQExportOptions.Lookups).
type storeReads struct {
	db   *rocks.DB
	once bool
}

func (r storeReads) get(cf string, keys [][]byte) ([][]byte, []bool, error) {
	return r.db.MultiGetOpts(cf, keys, rocks.ReadOpts{FillCache: !r.once || cf == format.CFTenants})
}

func (storeReads) plans() bool { return false }
