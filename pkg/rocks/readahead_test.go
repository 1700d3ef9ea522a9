package rocks

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// fileReads is how many reads of table files RocksDB has made, by its own tickers (a store
// opened with Tuning.Statistics).
func fileReads(t *testing.T, db *DB) int64 {
	t.Helper()
	var n int64
	seen := 0
	for _, line := range strings.Split(db.Statistics(), "\n") {
		for _, name := range []string{"rocksdb.last.level.read.count", "rocksdb.non.last.level.read.count"} {
			if rest, ok := strings.CutPrefix(line, name+" COUNT : "); ok {
				v, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
				if err != nil {
					t.Fatalf("%s: %v", line, err)
				}
				n += v
				seen++
			}
		}
	}
	if seen != 2 {
		t.Fatalf("the statistics hold %d of the two read counts", seen)
	}
	return n
}

// A scan with Readahead reads a table file in reads of that size; without it, a block a read.
// The same flushed family of 2 MiB (values that do not compress, blocks of 4 KiB) is scanned
// both ways, the reads counted by RocksDB's own tickers.
func TestScanReadahead(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite, Tune: Tuning{Statistics: true}})
	const n, size = 2048, 1024
	r := rand.New(rand.NewPCG(45, 2))
	mustWrite(t, db, func(b *Batch) {
		for i := range n {
			v := make([]byte, size)
			for j := range v {
				v[j] = byte(r.Uint32())
			}
			b.Put(format.CFHooks, hookKey(i), v)
		}
	})
	if err := db.Flush(format.CFHooks); err != nil {
		t.Fatal(err)
	}
	const ahead = 256 << 10
	count := func(ro ReadOpts) int64 {
		before := fileReads(t, db)
		seen := 0
		if err := db.Scan(format.CFHooks, nil, nil, ro, func(k, v []byte) error {
			if len(v) == size {
				seen++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if seen != n {
			t.Fatalf("the scan saw %d of the %d values", seen, n)
		}
		return fileReads(t, db) - before
	}
	// With readahead first: it pays whatever opening the file reads, if anything does.
	withAhead := count(ReadOpts{Readahead: ahead})
	without := count(ReadOpts{})
	// 2 MiB in reads of 256 KiB: 8, and a few for the file's index and the reads that cross
	// a buffer's end.
	if withAhead > 16 {
		t.Errorf("a scan of %d KiB with a readahead of %d KiB made %d reads, want at most 16", n*size>>10, ahead>>10, withAhead)
	}
	if without < n*size/(8<<10) {
		t.Errorf("the scan without readahead made %d reads, want at least %d (a block a read): the test cannot tell the two apart", without, n*size/(8<<10))
	}
	t.Logf("reads: %d with a readahead of %d KiB, %d without", withAhead, ahead>>10, without)
}
