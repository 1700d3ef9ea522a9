package storetest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// IngestedTables is every table file of the store in dir that was written outside the
// database and ingested (the bulk migration's), as RocksDB 7.8.3's sst_dump tells them: the
// table properties of an ingested file carry rocksdb.external_sst_file.version, which a
// flush or a compaction never writes. Asking the old node's own tool, not this build, keeps
// the answer independent of the code under test.
func IngestedTables(t testing.TB, dir string) []string {
	t.Helper()
	sstDump := OldNodeTool(t, "sst_dump")
	tables, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range tables {
		props, err := exec.Command(sstDump, "--file="+f, "--show_properties").CombinedOutput()
		if err != nil {
			t.Fatalf("RocksDB %s: sst_dump --show_properties %s: %v\n%s", oldestNodeRocksDB, filepath.Base(f), err, props)
		}
		if strings.Contains(string(props), "rocksdb.external_sst_file.version") {
			out = append(out, f)
		}
	}
	return out
}

// OldestNodeReadsIngested is OldestNodeReads of a store a bulk run wrote, with the files that
// run ingested named and checked one by one: there must be some (a check that found none
// would be a check of the steps' files only), and 7.8.3's sst_dump must pass each through
// --command=check (every block read and its checksum verified) and --command=verify.
func OldestNodeReadsIngested(t testing.TB, dir string) {
	t.Helper()
	sstDump := OldNodeTool(t, "sst_dump")
	ingested := IngestedTables(t, dir)
	if len(ingested) == 0 {
		t.Fatalf("%s holds no ingested table file: no bulk run wrote it", dir)
	}
	for _, f := range ingested {
		for _, command := range []string{"check", "verify"} {
			out, err := exec.Command(sstDump, "--file="+f, "--command="+command).CombinedOutput()
			if err != nil || strings.Contains(string(out), "Corruption") || strings.Contains(string(out), "Not supported") {
				t.Fatalf("RocksDB %s refuses the ingested %s: sst_dump --command=%s: %v\n%s", oldestNodeRocksDB, filepath.Base(f), command, err, out)
			}
		}
	}
	OldestNodeReads(t, dir)
}
