// Package lockholder is the one test helper for a store a running node holds: the test
// binary started again as a second process that takes the store's LOCK and keeps it until
// the test lets go. A lock taken by the test's own process would not do: POSIX record
// locks are per process, and F_GETLK does not report the caller's own. Two ways to hold:
// the lock alone (LockOnly: fcntl as RocksDB takes it, the store's files untouched, its WAL
// as it was) and an open for writing through pkg/rocks (Open: the node's files kept as the
// tool keeps them, the open's own flushes and compactions settled before it says it holds).
// A test package's TestMain calls Main first. Imported by tests only (internal/testkit).
package lockholder
