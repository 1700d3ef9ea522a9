// Package storetest holds the test helpers that several packages' tests
// need, so that each is written once: where the committed test data is and
// how to extract a committed store, how to copy a closed store, a store's
// files as they are on disk (to show that a read-only command changed no
// byte), its logical content (every key of every column family, counters
// read through the merge operator, to show that two stores answer every read
// the same), and Writer, under the small-store builders of the tests, which
// commits rows as a node does (sentinels, tenant ordinals, counter deltas,
// m:next_ord), and Queue on it, a small queue written row by row as the node
// writes one (a row with its delivery row, hook, markers and counters), which
// the views' tests (pkg/inspect) and the comparison's (pkg/storediff) both
// build their stores with.
//
// It is imported only by tests. It stands on package rocks, so the tests of
// package rocks itself (and of format, below it) cannot use it: Go forbids
// the import cycle, and those tests keep their few helpers of their own.
package storetest
