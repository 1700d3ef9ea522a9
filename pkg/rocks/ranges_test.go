package rocks

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"pgregory.net/rapid"
)

// TestRangesAreScans: ranges read one after another on one Ranges hand on what a Scan of each
// hands on, for any keys and ranges in any order: keys that are prefixes of a range's end or
// extend it, empty ranges, ranges past the family's end, open ends, and ranges longer than a
// fill.
func TestRangesAreScans(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	cf := format.CFHooks
	alphabet := []byte{0x00, 0x01, 0x7f, 0xff}
	keyGen := rapid.Custom(func(t *rapid.T) []byte {
		n := rapid.IntRange(0, 3).Draw(t, "len")
		k := []byte{'k'}
		for range n {
			k = append(k, rapid.SampledFrom(alphabet).Draw(t, "b"))
		}
		return k
	})
	b := NewBatch()
	for i := range 3 * fillMaxEntries {
		b.Put(cf, fmt.Appendf(nil, "m%05d", i), []byte{byte(i)})
	}
	if err := db.Write(b, false); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(cf); err != nil {
		t.Fatal(err)
	}
	scan := func(lo, hi []byte) []string {
		var out []string
		if err := db.Scan(cf, lo, hi, ReadOpts{}, func(k, v []byte) error {
			out = append(out, fmt.Sprintf("%x=%x", k, v))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfNDistinct(keyGen, 0, 40, func(k []byte) string { return string(k) }).Draw(t, "keys")
		b := NewBatch()
		for _, k := range keys {
			b.Put(cf, k, slices.Concat([]byte("v"), k))
		}
		if err := db.Write(b, false); err != nil {
			t.Fatal(err)
		}
		bound := rapid.OneOf(keyGen, rapid.Just([]byte("m01000")), rapid.Just([]byte("m09000")), rapid.Just([]byte("z")))
		r, err := db.NewRanges(cf, ReadOpts{Readahead: rapid.SampledFrom([]int{0, 64 << 10}).Draw(t, "readahead")})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		for i := range rapid.IntRange(1, 6).Draw(t, "ranges") {
			lo := bound.Draw(t, "lo")
			var hi []byte
			if rapid.IntRange(0, 4).Draw(t, "open") > 0 {
				hi = bound.Draw(t, "hi")
			}
			want := scan(lo, hi)
			var got []string
			if err := r.Scan(lo, hi, func(k, v []byte) error {
				got = append(got, fmt.Sprintf("%x=%x", k, v))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("range %d [%x, %x):\n got  %d keys %.300v\n want %d keys %.300v", i, lo, hi, len(got), got, len(want), want)
			}
		}
	})
}

// A Ranges stops where fn says, hands fn's error on, and is one iterator however many ranges
// it reads; closed, it reads nothing.
func TestRangesStopAndClose(t *testing.T) {
	db := hooksOf(t, 100, func(i int) []byte { return []byte{byte(i)} })
	before := db.Iterators()
	r, err := db.NewRanges(format.CFHooks, ReadOpts{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := r.Scan(hookKey(10), hookKey(20), func(k, v []byte) error {
		if n++; n == 3 {
			return Stop
		}
		return nil
	}); err != nil || n != 3 {
		t.Fatalf("a range stopped at its third key: %v after %d keys", err, n)
	}
	planted := errors.New("planted")
	if err := r.Scan(hookKey(50), nil, func(k, v []byte) error { return planted }); !errors.Is(err, planted) {
		t.Fatalf("fn's error: got %v", err)
	}
	var got []string
	if err := r.Scan(hookKey(98), nil, func(k, v []byte) error {
		got = append(got, string(k))
		return nil
	}); err != nil || fmt.Sprint(got) != fmt.Sprint([]string{string(hookKey(98)), string(hookKey(99))}) {
		t.Fatalf("the family's last two keys: %v, %v", got, err)
	}
	if made := db.Iterators() - before; made != 1 {
		t.Errorf("three ranges made %d iterators, want 1", made)
	}
	r.Close()
	r.Close()
	if err := r.Scan(nil, nil, func(k, v []byte) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Errorf("a closed Ranges' scan: %v, want ErrClosed", err)
	}
	// The read lock is let go: closing the store does not wait for it.
	db.Close()
}

// What one iterator keeps between ranges: ranges of a key each, read one after another on
// one Ranges, read the table's index block once, where a Scan a range reads it each time when
// the block cache does not hold it (a store's index blocks are kept there, which these reads
// do not fill, and a 10^7-row store's are more than the cache holds; here the cache holds
// nothing). Counted by RocksDB's tickers.
func TestRangesReadTheIndexOnce(t *testing.T) {
	const n, size, ranges = 2048, 1024, 64
	db := flushedNoise(t, n, size, Tuning{Statistics: true, BlockCacheBytes: 1})
	each := func(read func(lo, hi []byte)) uint64 {
		before := fileReads(t, db)
		for i := range ranges {
			k := i * (n / ranges)
			read(hookKey(k), hookKey(k+1))
		}
		return fileReads(t, db) - before
	}
	one := func(k, v []byte) error {
		if len(v) != size {
			return fmt.Errorf("%s: %d bytes", k, len(v))
		}
		return nil
	}
	scans := each(func(lo, hi []byte) {
		if err := db.Scan(format.CFHooks, lo, hi, ReadOpts{}, one); err != nil {
			t.Fatal(err)
		}
	})
	rg, err := db.NewRanges(format.CFHooks, ReadOpts{})
	if err != nil {
		t.Fatal(err)
	}
	defer rg.Close()
	onOne := each(func(lo, hi []byte) {
		if err := rg.Scan(lo, hi, one); err != nil {
			t.Fatal(err)
		}
	})
	// A data block a range either way; the index block once, against once a range.
	if onOne > ranges+2 || scans < 2*ranges {
		t.Errorf("%d ranges of a key: %d reads on one Ranges (want at most %d), %d by a Scan each (want at least %d)", ranges, onOne, ranges+2, scans, 2*ranges)
	}
	t.Logf("%d ranges of a key: %d reads on one Ranges, %d by a Scan each", ranges, onOne, scans)
}
