// Package slots keeps a value for each of a dense range of numbers, put in any order and
// read back in the numbers' order: a sorted join's answers, found in the order of the side
// it scans (a hook's seq) and wanted in the order of the other (a row's place in the
// index), without sorting them back. A record is appended to its bucket (the numbers of
// one 2^BucketBits span) through a small buffer, the full buffers kept in memory or, past
// Limits.SpillAfter, written to an unnamed file in the temporary directory; a Reader loads
// one bucket at a time into an array and answers from it. Placing a bucket's records is one
// pass over them, where sorting them back (internal/runs) took a radix sort, a packing and
// a merge of every answer: at 10^7 rows a bulk migration's joins spent some 2 s of CPU on it.
//
// The memory is the buckets' write buffers (Limits.BufTotal, shared, never less than
// Limits.BufLeast each), the chunks kept before the file (Limits.SpillAfter) and one
// bucket's arrays while reading; the file holds 8 bytes a record (16 for a wide table).
package slots
