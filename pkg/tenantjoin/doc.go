// Package tenantjoin reads a format 3 store's tenants as a stream: the
// tenant-by-ordinal rows joined with their counters and their oldest due
// rows, all three families in ordinal order, so that tenants ls at 10^6
// tenants holds a chunk of each family rather than every row. Package
// inspect's tenants views build their rows from it; it knows nothing of them.
//
//   - Count (count.go) counts the t rows a listing shows before its first
//     row (`matched` comes first in the JSON), in two halves side by side,
//     holding what it read (Held, up to Sizes.HoldMax) for the join;
//   - Run (join.go) joins the t rows (from Held or the store) with the
//     counters and the due family and hands each tenant's to the caller's
//     Rows, ordinal 0's counters (the aggregate) first;
//   - CountersByGet (counters.go) reads the counters of a few tenants by key;
//   - FirstDue and OldestDue (due.go) find a tenant's oldest due row: by one
//     seek, or for a few tenants from the active index or one walk of the
//     due family, whichever reads less;
//   - Stash (stash.go) holds a sorted listing's rows as a few bytes each and
//     sorts them with the radix sort, by a key or by id.
//
// Bounds: Run holds a chunk of the t, counters and due families; Count holds
// at most Sizes.HoldMax (32 MiB) of t rows; a Stash holds about 30 bytes a
// tenant beside its id, in blocks of a MiB. Nothing is written to disk.
package tenantjoin
