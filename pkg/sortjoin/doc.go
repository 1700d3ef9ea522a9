// Package sortjoin reads the rows a long walk of dead letters points at by key
// (their delivery rows, tenant names and hooks) as a sorted join instead of
// one lookup each. A dead letter is listed by time and each of its rows is
// keyed by seq: read by key in the listing's order, every lookup lands in
// another block of families far larger than the block cache, and at 10^8
// rows the lookups were ten times the cost of reading the same families
// through. dlq export and a streamed dlq scan (package inspect) use it.
//
// The join knows nothing of the views: a caller hands it a Walk, its own
// pages run over a Reads, and says after each page the seqs of its rows. The
// walk runs three times in all (join.go, plan.go):
//
//  1. plan: the walk runs over a Plan, whose Get records each key asked for
//     with its position and finds nothing (sorted runs of internal/runs);
//  2. gather: the keys, merged in key order, are read by walking each family
//     forward beside them, and each value is written with its position to an
//     unnamed file in $TMPDIR, in buckets of positions (spill.go);
//  3. the caller's walk again, over the Join, whose Get serves each family's
//     values in the walk's own order from the buckets read back.
//
// Bounds. Memory: the plan holds a batch of Sizes.PlanBatch keys a family
// (3 MiB) and reads its runs back through a buffer each (13 MiB at 10^8
// rows); the gather holds a segment of Sizes.Segment a bucket, at most
// Sizes.BucketsMax buckets a family (32 MiB); the third pass holds one window
// of Sizes.WindowMax a family (16 MiB), a larger bucket split to disk first.
// Disk: the values gathered with their records' bytes, twice over for the
// splits, checked against $TMPDIR's file system before the gather
// (pkg/diskspace); the file has no name, so its blocks go back when the join
// closes or the process ends, however it ends.
//
// The join never fails a walk a read by key would finish: a plan or gather
// that cannot use $TMPDIR, or a file system with no room, leaves the caller
// to read by key (Start's reason), and a split in the third pass that meets
// a full disk turns the rest of the walk into reads by key (Join.ByKey). A
// key asked for in the third pass that the plan did not record (the store
// moved between the passes) fails the walk.
package sortjoin
