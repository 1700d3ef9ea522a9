// Package runs is the one place sorted runs are kept: a merge join that must
// re-sort one side (counters verify's markers and dead rows, dlq export's
// lookups) collects it in batches, sorts each and packs it into a run of
// elements of up to three words, each word a uvarint delta from the element
// before, a few bytes where the batch held 16. The join then scans the other
// side once, beside all the runs read back merged by a heap (Merge), so a
// store of 10^7 rows joins in one scan rather than one per batch.
//
// Past Limits.SpillAfter bytes, runs go to an unnamed file in the system's
// temporary directory (scratch.SpillFile) instead: the page cache holds
// them, not the process, so a store of 10^8 rows still joins in one scan
// with its memory flat, and nothing is left behind to sweep. Where that file
// cannot be made or written (no unnamed files, no space), the runs after
// stay in memory (SpillErr says why) and the merge reads both as one; how
// many bytes a join keeps in memory before it must pass is the caller's
// policy (Size).
package runs
