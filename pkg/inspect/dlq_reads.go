package inspect

import (
	"context"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/store"
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

// pageReads is what the rows pass of a page walk (an export, a streamed
// scan) reads its rows' rows through: the sorted join, or the store by key.
type pageReads struct {
	st    *rocks.Store // the store the rows pass walks (opened again for lookups, maybe)
	reads rowReads
	join  *exportJoin // nil when the rows are read by key
	// hooks is format 2's hook cache, one for all pages, so that the
	// hook-read note counts them all.
	hooks *hookTenants
}

// openPageReads starts walk's sorted join (startExportJoin). When the rows
// are read by key after all, it opens the store again with its tables'
// indexes on the heap (lookups, when set and they are not): a store opened
// for the join keeps them in the block cache, where each lookup at random
// reads its index again (10^6 lookups took 54.7 s of CPU, not 13.6).
// Close the result.
func openPageReads(ctx context.Context, st *rocks.Store, how ExportJoin, use joinUse, walk dlqExportWalk, rep reporting.Reporter,
	notes *viewNotes, lookups *store.Handle) (pageReads, error) {
	j, err := startExportJoin(ctx, st, how, use, walk, rep, notes)
	if err != nil {
		return pageReads{}, err
	}
	if j == nil && lookups != nil && !st.DB.IndexOnHeap(use.lookedUp) {
		if st, err = lookups.Reopen(rocks.Options{Mode: rocks.ReadOnly, RandomLookups: true}); err != nil {
			return pageReads{}, err
		}
	}
	// At 10^6 dead letters, their delivery rows and hooks are most of what
	// is read: read once, not cached.
	p := pageReads{st: st, reads: storeReads{db: st.DB, once: true}}
	if j != nil {
		p.reads, p.join = j, j
	}
	if st.Format == format.Format2 {
		p.hooks = newHookTenants(st.DB)
	}
	return p, nil
}

func (p pageReads) close() {
	if p.join != nil {
		p.join.close()
	}
}
