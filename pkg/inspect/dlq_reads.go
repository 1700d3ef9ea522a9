package inspect

import (
	"context"

	"github.com/ankusa/ankusa-store/internal/reporting"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"github.com/ankusa/ankusa-store/pkg/sortjoin"
	"github.com/ankusa/ankusa-store/pkg/store"
)

// rowReads is where the dead-letter views read the rows their dead rows
// point at (delivery rows, hooks), by key, a page at a time: the store itself
// (sortjoin.StoreReads), or, for a whole export or a streamed scan, the values
// a sorted join has read ahead in key order (sortjoin.Join). A page of dlq
// scan fills the block cache; an export or a stream reads each delivery row
// and hook once (Once). Lookups at random want the store opened with its
// tables' indexes on the heap (an export opens it so again when it reads by
// key: DLQExportOptions.Lookups).
type rowReads = sortjoin.Reads

// pageReads is what the rows pass of a page walk (an export, a streamed
// scan) reads its rows' rows through: the sorted join, or the store by key.
type pageReads struct {
	st    *rocks.Store // the store the rows pass walks (opened again for lookups, maybe)
	reads rowReads
	join  *sortjoin.Join // nil when the rows are read by key
	// hooks is format 2's hook cache, one for all pages, so that the
	// hook-read note counts them all.
	hooks *hookTenants
}

// openPageReads starts walk's sorted join (startJoin). When the rows
// are read by key after all, it opens the store again with its tables'
// indexes on the heap (lookups, when set and they are not): a store opened
// for the join keeps them in the block cache, where each lookup at random
// reads its index again (10^6 lookups took 54.7 s of CPU, not 13.6).
// Close the result.
func openPageReads(ctx context.Context, st *rocks.Store, how ExportJoin, use joinUse, walk dlqExportWalk, rep reporting.Reporter,
	notes *viewNotes, lookups *store.Handle) (pageReads, error) {
	j, err := startJoin(ctx, st, how, use, walk, rep, notes)
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
	p := pageReads{st: st, reads: sortjoin.StoreReads{DB: st.DB, Once: true}}
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
		p.join.Close()
	}
}

// noteByKey says, once the walk is over, that the join gave way to reads by key.
func (p pageReads) noteByKey(notes *viewNotes, use joinUse) {
	if p.join != nil && p.join.ByKey() != nil {
		byKeyInstead(notes, use, p.join.ByKey())
	}
}

// joinUse is what a sorted join serves: an export reads each dead letter's
// hook, delivery row and tenant name; a streamed dlq scan (StreamDLQ) its
// delivery row and tenant name, at the same cost by key a row.
type joinUse struct {
	who   string // "the export": the notes' subject
	hooks bool   // the hooks are read too
	// lookedUp is the family whose tables' index placement tells whether a
	// store opened for the join must be opened again to read by key.
	lookedUp string
	// sizes are the join's sizes (a test's; the zero value, sortjoin's own).
	sizes sortjoin.Sizes
}

// with is use with a test's join sizes.
func (use joinUse) with(sizes sortjoin.Sizes) joinUse {
	use.sizes = sizes
	return use
}

var (
	joinForExport = joinUse{who: "the export", hooks: true, lookedUp: format.CFHooks}
	joinForScan   = joinUse{who: "the scan", lookedUp: format.CFDeliveries}
)

// startJoin plans and gathers the sorted join of walk's lookups
// (sortjoin.Start), or returns nil when the rows should be read by key: a
// format 2 store, --join by-key, a walk too small to gain, or no room or no
// file for the values (a note says which).
func startJoin(ctx context.Context, st *rocks.Store, how ExportJoin, use joinUse, walk dlqExportWalk, rep reporting.Reporter, notes *viewNotes) (*sortjoin.Join, error) {
	if st.Format != format.Format3 || how == ExportJoinByKey {
		return nil, nil
	}
	seqs := func(ctx context.Context, reads rowReads, page func([]uint64) error) error {
		return walk(ctx, reads, func(_ *dlqScan, rows []DLQRow, _ bool) error {
			s := make([]uint64, len(rows))
			for i := range rows {
				s[i] = rows[i].Seq
			}
			return page(s)
		})
	}
	j, why, err := sortjoin.Start(ctx, st.DB, seqs, sortjoin.Options{Always: how == ExportJoinSorted, Hooks: use.hooks,
		Who: use.who, Progress: rep, Sizes: use.sizes})
	if why != nil {
		byKeyInstead(notes, use, why)
	}
	return j, err
}

// byKeyInstead says on stderr why a join is left for reads by key.
func byKeyInstead(notes *viewNotes, use joinUse, why error) {
	rows := "delivery row"
	if use.hooks {
		rows = "hook and delivery row"
	}
	notes.note("%v; %s reads each dead letter's %s by key instead (slower: give TMPDIR a file system with room, or --join by-key)", why, use.who, rows)
}
