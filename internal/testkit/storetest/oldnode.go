package storetest

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The oldest node supported runs erlang-rocksdb 1.8 (RocksDB 7.7.3, table format_version 5).
// Debian bookworm's rocksdb-tools (RocksDB 7.8.3, same newest format) stand in for it: what
// they read, that node reads. They are found on PATH (scripts/setup.sh installs them); the
// tool's own RocksDB (11.1.2) is never on PATH, so these cannot be the tool's own tools.
const oldestNodeRocksDB = "7.8.3"

// OldNodeTool returns the path of Debian's 7.8.3 tool name (ldb or sst_dump), failing the
// test when it is missing or is another RocksDB's: a skipped check would prove nothing.
func OldNodeTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s (Debian's rocksdb-tools %s) is not installed: scripts/setup.sh installs it", name, oldestNodeRocksDB)
	}
	out, _ := exec.Command(p, "--version").CombinedOutput()
	// "ldb from RocksDB 7.8.3", "sst_dump (RocksDB) 7.8.3"
	if !bytes.Contains(out, []byte("RocksDB")) || !bytes.Contains(out, []byte(" "+oldestNodeRocksDB)) {
		t.Fatalf("%s is not RocksDB %s's: %s", p, oldestNodeRocksDB, out)
	}
	return p
}

// OldestNodeReads checks that RocksDB 7.8.3 reads all of the store in dir as this tool does:
//
//   - every WAL file: 7.8.3's `ldb dump_wal` parses every record as this build's own ldb does
//     (ldb cannot replay a WAL holding merge operands: it has no merge operator for counters,
//     and drops the rest of the log, so the log is compared record by record instead);
//   - then, on a copy whose memtables this tool flushed (by the write rule, as any later
//     write would), `ldb checkconsistency`, `sst_dump --command=verify` on every table file,
//     every table of format_version 5 or older, and a scan of every family equal to the
//     tool's own read of dir (counters: ldb's raw operands merged with the contract's merge,
//     as the node's operator would).
func OldestNodeReads(t testing.TB, dir string) {
	t.Helper()
	ldb, sstDump := OldNodeTool(t, "ldb"), OldNodeTool(t, "sst_dump")
	want := Dump(t, dir)
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err != nil {
			t.Fatalf("RocksDB %s refuses what the tool wrote: %s: %v\n%s", oldestNodeRocksDB, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	wals, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, w := range wals {
		old := run(ldb, "dump_wal", "--walfile="+w)
		own := walRecords(run(OwnLdb(t), "dump_wal", "--walfile="+w))
		if walRecords(old) != own {
			t.Fatalf("RocksDB %s reads %s differently from this build's RocksDB:\n--- %s\n%s\n--- this build\n%s",
				oldestNodeRocksDB, filepath.Base(w), oldestNodeRocksDB, old, own)
		}
	}
	cp := filepath.Join(t.TempDir(), "oldnode")
	if err := CopyTree(dir, cp); err != nil {
		t.Fatal(err)
	}
	flushAll(t, cp)
	if out := run(ldb, "--db="+cp, "checkconsistency"); !strings.Contains(out, "OK") {
		t.Fatalf("ldb checkconsistency: %s", out)
	}
	tables, _ := filepath.Glob(filepath.Join(cp, "*.sst"))
	for _, f := range tables {
		if out := run(sstDump, "--file="+f, "--command=verify"); !strings.Contains(out, "is ok") {
			t.Fatalf("sst_dump --command=verify %s: %s", filepath.Base(f), out)
		}
		if ti, err := rocks.ReadTableInfo(f); err != nil || ti.FormatVersion > 5 {
			t.Fatalf("%s: %+v, %v: RocksDB %s reads format_version 5 at most", filepath.Base(f), ti, err, oldestNodeRocksDB)
		}
	}
	got := Contents{}
	for cf := range want {
		if cf == format.CFCounters {
			got[cf] = mergedIdump(t, run(ldb, "--db="+cp, "--column_family="+cf, "--hex", "idump"))
			continue
		}
		got[cf] = parseScan(t, run(ldb, "--db="+cp, "--column_family="+cf, "--hex", "scan"))
	}
	if d := Diff(want, got); d != "" {
		t.Fatalf("RocksDB %s reads the store differently from the tool:\n%s", oldestNodeRocksDB, d)
	}
}

// OwnLdb is this build's own ldb (scripts/build-rocksdb.sh builds it beside the library).
func OwnLdb(t testing.TB) string {
	t.Helper()
	prefix := os.Getenv("ANKUSA_ROCKSDB_PREFIX")
	if prefix == "" {
		prefix = "/var/cache/ankusa-store/rocksdb-11.1.2-release"
	}
	p := filepath.Join(prefix, "bin", "ldb")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("this build's ldb: %v (scripts/build-rocksdb.sh builds it)", err)
	}
	return p
}

// walRecords is `ldb dump_wal` output without the note newer versions add at its end.
func walRecords(out string) string {
	var b strings.Builder
	for line := range strings.Lines(out) {
		if !strings.HasPrefix(line, "(Column family id") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// flushAll writes every family's memtable of the store in dir to table files, as this tool
// writes (the write rule), so that a reader without the merge operator reads it all.
func flushAll(t testing.TB, dir string) {
	t.Helper()
	db, err := rocks.Open(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer db.Close()
	for _, cf := range db.Families() {
		if err := db.Flush(cf); err != nil {
			t.Fatalf("flush %s: %v", cf, err)
		}
	}
}

// parseScan reads `ldb --hex scan` output: "0xKEY : 0xVALUE" a line.
func parseScan(t testing.TB, out string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, " : ")
		if !ok {
			// An empty value: "0xKEY : " less its trailing space.
			k, ok = strings.CutSuffix(line, " :")
			if !ok {
				t.Fatalf("ldb scan line %q", line)
			}
		}
		m[string(unhex(t, k))] = string(unhex(t, v))
	}
	return m
}

// idumpLine is one internal key of `ldb --hex idump`: 'KEY' seq:SEQ, type:TYPE => VALUE.
var idumpLine = regexp.MustCompile(`^'([0-9A-Fa-f]*)' seq:([0-9]+), type:([0-9]+) =>(?: ([0-9A-Fa-f]*))?$`)

// mergedIdump folds the internal keys of counters as a reader does: per user key, the newest
// put or deletion below the merge operands above it, merged by the contract's operator.
func mergedIdump(t testing.TB, out string) map[string]string {
	t.Helper()
	type entry struct {
		seq uint64
		typ int
		val []byte
	}
	byKey := map[string][]entry{}
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "Internal keys in range") {
			continue
		}
		m := idumpLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("ldb idump line %q", line)
		}
		seq, _ := strconv.ParseUint(m[2], 10, 64)
		typ, _ := strconv.Atoi(m[3])
		k := string(unhex(t, m[1]))
		byKey[k] = append(byKey[k], entry{seq, typ, unhex(t, m[4])})
	}
	res := map[string]string{}
	for k, es := range byKey {
		slices.SortFunc(es, func(a, b entry) int { return cmp.Compare(b.seq, a.seq) })
		var operands [][]byte // newest first
		var base []byte       // nil below a deletion, as for a key never put
	walk:
		for _, e := range es {
			switch e.typ {
			case 2: // kTypeMerge
				operands = append(operands, e.val)
			case 1: // kTypeValue
				base = e.val
				break walk
			case 0, 7: // kTypeDeletion, kTypeSingleDeletion
				break walk
			default:
				t.Fatalf("counters key %x: internal key type %d", k, e.typ)
			}
		}
		if len(operands) == 0 {
			if base != nil {
				res[k] = string(base)
			}
			continue
		}
		slices.Reverse(operands)
		v, ok := rocks.MergeCounter(base, operands)
		if !ok {
			t.Fatalf("counters key %x: the merge fails on what ldb read", k)
		}
		res[k] = string(v)
	}
	return res
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	if err != nil {
		t.Fatalf("ldb hex %q: %v", s, err)
	}
	return b
}

// TableFormats maps every table file of dir to what its footer and properties say:
// "default fv5 crc32c Snappy". A test compares it with what the write rule promised.
func TableFormats(t testing.TB, dir string) map[string]string {
	t.Helper()
	tables, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range tables {
		ti, err := rocks.ReadTableInfo(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = fmt.Sprintf("%s fv%d %s %s", ti.Family, ti.FormatVersion, ti.Checksum, ti.Compression)
	}
	return out
}
