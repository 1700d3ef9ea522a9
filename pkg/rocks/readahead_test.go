package rocks

import (
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A scan with Readahead reads a table file in reads of that size; without it, a block a read.
// The same flushed family of 2 MiB (values that do not compress, blocks of 4 KiB) is scanned
// both ways, the reads counted by RocksDB's own tickers.
func TestScanReadahead(t *testing.T) {
	const n, size = 2048, 1024
	db := flushedNoise(t, n, size, Tuning{Statistics: true})
	const ahead = 256 << 10
	count := func(ro ReadOpts) uint64 {
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
