// Package offheap holds growable slices in memory mapped outside the Go
// heap, for the large tables a long run keeps for its whole length (the
// migration's hook table, verify's tenant table). On the heap such a table
// raises the garbage collector's goal by as much again (GOGC lets the heap
// grow to twice what is live), so a run that keeps 100 MB would reach
// 200 MB and more; mapped apart, it costs its own size.
//
// The element type must hold no pointers: the collector does not scan the
// mapping, so a pointer kept only there would not keep its target alive.
package offheap
