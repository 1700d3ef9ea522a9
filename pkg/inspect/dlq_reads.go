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
}

// storeReads reads by multi-get. A page of dlq scan fills the block cache
// (its rows are read again by the next look); an export or a stream reads
// each delivery row and hook once (once), whose blocks are not worth the
// cache, but a tenant's name again and again. Where a family's tables keep
// their index in the cache (a store opened for a sorted join), every read
// fills it: a read that does not leaves the index block it needed (a
// megabyte for a table of 64 MiB) out of the cache, and the next lookup
// reads it again (10^6 lookups by key took 54.7 s of CPU, not 13.6).
type storeReads struct {
	db   *rocks.DB
	once bool
}

func (r storeReads) get(cf string, keys [][]byte) ([][]byte, []bool, error) {
	fill := !r.once || cf == format.CFTenants || !r.db.IndexOnHeap(cf)
	return r.db.MultiGetOpts(cf, keys, rocks.ReadOpts{FillCache: fill})
}
