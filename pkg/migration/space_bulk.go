package migration

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// EstimatedBulkRowsPerSec is the rate a dry run's estimate of the bulk method's duration
// assumes: rows a second of the process's CPU, as the steps' 50,000 (EstimatedRowsPerSec)
// is their 47,000 rows a CPU second at 10^7 rows rounded. 10^8 rows over 10^6 tenants took
// the bulk method 374.8 and 397.7 s of CPU (docs/testing.md, "The bulk commit replaces the
// index family"), 251,400 rows a CPU second at the slower, and 10^7 rows 33 to 35 s (about
// 290,000); it was 90,000 when the method took 111.2 s of CPU for 10^7 rows. A stopped node
// has the machine to itself, and the method uses both of these machines' cores (its wall
// time is some 60% of its CPU time); on a loaded machine the wall time was 3x the CPU time
// (10^7 rows in 330 s at a load of 20 on 2 cores, with the older code), and the progress
// line shows the real rate.
const EstimatedBulkRowsPerSec = 250_000

// Bulk is the estimate for the bulk method, whose staging is not the steps' WAL,
// memtables and compactions but its sorted runs and table files, all on the store's file
// system until the commit: the runs spilled beside the store's files (unnamed: they go
// with the process) and the table files in the staging directory inside it (StagingPrefix).
// Their peak is both at once: the runs are freed only once the tables are written, and
// the tables become the store's at the ingest (linked, not copied).
//
// The runs hold every write of the steps, key and value with a few bytes of framing:
// at most the steps' writes as EstimateSpace counts them (2*RowBytes + rowOverhead a row),
// which is above what the steps write (1.55x their bytes_written on the fixture below).
// The table files hold the new rows, compressed: half of that. Measured on a fixture of
// 302,658 rows (400,000 hooks, 3,000 tenants), the runs spilled 19.1 MiB against 36.3 MiB
// of this figure and the table files took 7.5 MiB against 18.1 MiB: the staged peak, 26.6
// MiB, is half the estimate's 54.4 MiB. At 10^7 rows (docs/testing.md) the runs took 1.1x
// and the tables 0.28x of the steps' bytes written, the same shares. The hook table's
// records and the fixed slack are the steps'. The ingest rewrites no old table (it replaces
// the index family's, whose space comes back at the commit), so the index family's tables
// are not counted again as the steps count them for their compactions.
//
// Before all that, the joins spill to the temporary directory their sorted runs (each row's
// seq and number, each dead row's seq, sink and number, varint-packed) and their answers
// (8 bytes a row, 16 a dead row: internal/slots): 217.3 MiB at 10^7 rows, 22.8 bytes a row,
// 2.3 GiB at 10^8 over 10^6 tenants, 24.7 (docs/testing.md); JoinTemp takes 32 a row, less
// what the joins' two runs and two tables of answers keep in memory before they spill
// (nothing, below some 500,000 rows).
func (e SpaceEstimate) Bulk() SpaceEstimate {
	written := 2*e.RowBytes + rowOverhead*e.Rows
	e.Runs, e.Tables = written, written/2
	e.Migration = e.Runs + e.Tables + e.hookBytes + spaceSlack
	e.JoinTemp = max(joinTempRowBytes*e.Rows-joinTempHeld, 0)
	return e
}

// joinTempRowBytes bounds the joins' runs and answers a row (22.8 to 24.7 bytes measured);
// joinTempHeld is what their two runs and two tables of answers keep in memory before they
// spill.
const (
	joinTempRowBytes = 32
	joinTempHeld     = 4 * 4 << 20
)

// EstimateBulkSpace is the bulk method's estimate (Bulk) of a store no migration has
// touched, worked out before its run. The rows and their bytes are not counted by a pass over
// the index family's keys where a bound read in milliseconds is close (BulkSpace): that count
// took 9-11 s before a 10^8-row run, 5% of it, every key and value read on both cores before
// the run reads them all again.
func EstimateBulkSpace(ctx context.Context, st *rocks.Store) (SpaceEstimate, error) {
	if e, ok, err := boundedBulkSpace(st); err != nil || ok {
		return e, err
	}
	e, err := EstimateSpace(ctx, st, format.MigrationCursor{Phase: uint8(PhaseDue)})
	if err != nil {
		return e, err
	}
	return e.Bulk(), nil
}

// phaseRanges are the families the row phases read, [lo, hi) each, in key order.
func phaseRanges() [][2][]byte {
	var out [][2][]byte
	for _, p := range RowPhases {
		f := p.family()
		out = append(out, [2][]byte{f.Lo, f.Hi})
	}
	slices.SortFunc(out, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
	return out
}

// BulkSpace is EstimateBulkSpace where the rows were counted already (counted is
// EstimateSpace from the start: a dry run's, status's): the same figure the run works out.
func BulkSpace(st *rocks.Store, counted SpaceEstimate) (SpaceEstimate, error) {
	if e, ok, err := boundedBulkSpace(st); err != nil || ok {
		return e, err
	}
	return counted.Bulk(), nil
}

// boundDeletions is the share of the index family's table entries that may be deletions
// for the bound to stand for the count: one in a hundred.
const boundDeletions = 100

// boundedBulkSpace is the bulk method's estimate with the rows and their bytes bounded by
// what the index family's table files reaching into the four families it moves say they
// hold and what its memtables hold in them (rocks.TableRows), when that bound is close: ok
// false when it may not be. Every row it moves is among those entries, so the bound is never
// below the count; it is above it by what the files hold that a read no longer sees (rows
// deleted or written again but not yet compacted away) and by the keys of the families
// carried through untouched (cleared, claims, dedupe, expiry) in files that reach into a
// moved family too: a few files at the families' edges in a big store, all of them in a
// small store whose index is one or two files. A node's queue deletes rows all
// the time, and where its files hold more than a few deletions (the sample store's index
// family: 1,041 deletions among 1,646 entries, the bound 605 rows of 33.7 KB against 318 rows
// of 10.6 KB) or any range deletion (which deletes any number of them) the rows are counted:
// a bound that far above would refuse a run the disk has room for. At one deletion in a
// hundred entries the bound is within 1% of the count in rows (a deletion hides one row of
// those counted at most) and a little more in bytes (the deletion's own key); a row written again under the same key (its value changed in place)
// is not told apart either, a case the queue's keys, sequence numbers each, make rare.
func boundedBulkSpace(st *rocks.Store) (SpaceEstimate, bool, error) {
	t, err := st.TableRows(format.CFIndex, phaseRanges()...)
	if err != nil {
		return SpaceEstimate{}, false, err
	}
	if t.RangeDeletions > 0 || t.Deletions*boundDeletions > t.Entries {
		return SpaceEstimate{}, false, nil
	}
	e := SpaceEstimate{Rows: t.Rows(), RowBytes: t.Bytes(), IndexBytes: indexTableBytes(st), hookBytes: hookTableBytes(st), RowsBound: true}
	return e.Bulk(), true, nil
}

// EstimateBulk is how long the bulk method would take to move rows rows, at
// EstimatedBulkRowsPerSec.
func EstimateBulk(rows int64) time.Duration {
	return time.Duration(float64(rows) / EstimatedBulkRowsPerSec * float64(time.Second))
}
