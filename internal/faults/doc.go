// Package faults is the fault-injection suite: it runs the real ankusa-store binary against
// stores on the nights that are not the happy path (a full disk, damaged table, MANIFEST and
// WAL files, a node holding the LOCK, a writer churning while readers open, kill -9 during
// long work, an operator rerunning the runbook's command) and checks the exit code, the
// one-line message and the state of the store afterwards.
//
// The suite is test-only. It builds the binary from this module unless ANKUSA_STORE_BIN
// names one, so scripts/release-test.sh runs the same cases against the release build.
// Helper processes (a node holding the store, a churning writer) are this test binary
// re-executed with FAULTS_ROLE set: see roles in harness_test.go.
package faults
