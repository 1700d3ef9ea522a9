// Package radix is the one radix sort of the tool: a stable least-significant-digit sort of a
// slice by a 64-bit key, for the big batches a comparison sort would spend its time comparing
// (a migration step's writes, counters verify's joins).
package radix
