package migration

import "time"

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
func (e SpaceEstimate) Bulk() SpaceEstimate {
	written := 2*e.RowBytes + rowOverhead*e.Rows
	e.Runs, e.Tables = written, written/2
	e.Migration = e.Runs + e.Tables + e.hookBytes + spaceSlack
	return e
}

// EstimateBulk is how long the bulk method would take to move rows rows, at
// EstimatedBulkRowsPerSec.
func EstimateBulk(rows int64) time.Duration {
	return time.Duration(float64(rows) / EstimatedBulkRowsPerSec * float64(time.Second))
}
