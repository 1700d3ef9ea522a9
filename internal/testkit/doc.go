// Package testkit is the floor of the test helpers: its subpackages (storetest, fuzzcorpus)
// are imported by tests only, never by the program. They may stand on any package of the
// tool (storetest opens stores through pkg/rocks and extracts archives through pkg/archive);
// nothing under pkg/ or the tool's other internal/ packages may stand on them, so the
// program's layers never reach up into test code. imports_test.go holds that.
package testkit
