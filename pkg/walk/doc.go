// Package walk reads a family or a column family of an open store in chunks, next to
// pkg/rocks, for every reader that passes over many keys (the views; health's and the
// migration's scans may use it too). Chunks copies a few hundred to a few thousand entries
// out of a scan at a time and hands them on, or with Range.Held keeps one iterator for the
// whole walk; Family checks a family's sentinels on the way; Cursor (PullFamily,
// PullColumn, PullFirstOfEachTenant) reads ahead on its own goroutine for a consumer that
// merges several families side by side.
//
// The one rule: a scan callback holds the store's read lock, so it must not read the
// store itself; the point reads a chunk needs (names, delivery rows) are made after the
// callback returns, batched into one multi-get per chunk. Only a Cursor's consumer reads
// the store while a scan runs, which is safe because no writer of the store runs during
// a view (see PullFamily).
package walk
