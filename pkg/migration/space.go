package migration

import (
	"context"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// SpaceEstimate is what a run needs on the store's file system, worked out
// before it writes anything from the rows it has still to move.
//
// Per row moved a step writes its new key and value and deletes (or
// rewrites) the old one: at most about twice the row's key and value bytes,
// plus an active marker or a dead_by_tenant key and the counter operands
// (rowOverhead). Those bytes land twice before any of them is freed: in the
// WAL, then in the table files flushed from the memtables (the WAL goes once
// every family has flushed). The old rows stay until compaction drops them
// (tombstones included), and a compaction holds its inputs while it writes its
// outputs: up to the index family's table files once more. On top, a fixed
// slack for the MANIFEST, OPTIONS and LOG files and a half-full WAL block.
// Measured against real runs (see the report in docs/migration.md), the
// estimate is above what the migration took at its peak.
type SpaceEstimate struct {
	Rows     int64 `json:"rows"`      // keys left to read
	RowBytes int64 `json:"row_bytes"` // their keys and values
	// IndexBytes are the index family's table files now.
	IndexBytes int64 `json:"index_bytes"`
	Needed     int64 `json:"needed_bytes"`

	rowsLeft [numRowPhases]int64
}

const (
	rowOverhead = 64
	spaceSlack  = 8 << 20
)

// RowsLeft is the keys each row phase has left to read (rows and strays), indexed by
// Phase-1, as CountLeft counts them.
func (e SpaceEstimate) RowsLeft() [numRowPhases]int64 { return e.rowsLeft }

// EstimateSpace scans the rows left after cursor c (keys and values, no
// lookups: a fraction of the migration's own reads) and estimates the space
// the rest of the migration needs.
func EstimateSpace(ctx context.Context, st *rocks.Store, c format.MigrationCursor) (SpaceEstimate, error) {
	rows, bytes, err := scanLeft(ctx, st, c)
	if err != nil {
		return SpaceEstimate{}, err
	}
	e := SpaceEstimate{rowsLeft: rows}
	for i := range rows {
		e.Rows += rows[i]
		e.RowBytes += bytes[i]
	}
	if v, ok, err := st.IntProperty(format.CFIndex, "rocksdb.total-sst-files-size"); err == nil && ok {
		e.IndexBytes = int64(v)
	}
	written := 2*e.RowBytes + rowOverhead*e.Rows
	e.Needed = 2*written + e.IndexBytes + spaceSlack
	return e, nil
}
