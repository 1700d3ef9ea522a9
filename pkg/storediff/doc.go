// Package storediff is the key-by-key comparison of two stores behind
// `ankusa-store diff`: Stores reads every column family of both in key order
// side by side (a merge-join of one cursor each, pkg/walk), compares values
// as a reader sees them (counters merged, and compared as numbers), and
// counts and keeps the differing keys by family, or hands them to the
// caller as they are found (Options.Key, Options.Run) so that memory does
// not grow with the difference. Result is the stable JSON of `diff -o json`.
//
// It is a room of its own, not one of pkg/inspect's views: a view answers a
// question about one store and shares the views' rows (KeyRef, DLQRow, the
// hook-tenant lookup); the comparison shares none of them, only the two
// things that make its output read like the views': its notes are
// inspect.ViewNote, and a differing key's fields are decoded as `scan`
// decodes them (inspect.KeyFieldsOf). So it stands on pkg/inspect, and
// nothing below cmd stands on it.
package storediff
