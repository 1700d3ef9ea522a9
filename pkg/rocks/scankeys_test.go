package rocks

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// ScanKeys yields the keys Scan does, in the same order and bounds, with no
// value: values larger than the batch buffer cost it neither a private
// buffer nor a copy.
func TestScanKeys(t *testing.T) {
	const n = 3*fillMaxEntries + 5
	db := hooksOf(t, n, func(i int) []byte {
		size := 10
		if i%1000 == 7 {
			size = fillBufSize + 3
		}
		return bytes.Repeat([]byte{'v'}, size)
	})
	for _, c := range []struct{ lo, hi []byte }{{nil, nil}, {[]byte("k000100"), []byte("k009000")}} {
		var want, got []string
		if err := db.Scan(format.CFHooks, c.lo, c.hi, ReadOpts{}, func(k, _ []byte) error {
			want = append(want, string(k))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		it, err := newCIter(db, db.cfs[format.CFHooks], c.lo, c.hi, ReadOpts{}, false)
		if err != nil {
			t.Fatal(err)
		}
		it.keysOnly = true
		for {
			k, v, ok := it.next()
			if !ok {
				break
			}
			if len(v) != 0 {
				t.Fatalf("%s: a %d-byte value in a keys-only scan", k, len(v))
			}
			got = append(got, string(k))
			if len(got) > len(want) {
				t.Fatalf("[%q, %q): the keys-only iterator read %d keys of %d and goes on: it does not advance", c.lo, c.hi, len(got), len(want))
			}
		}
		if len(it.buf) != fillBufSize {
			t.Errorf("the keys-only scan grew its buffer to %d bytes", len(it.buf))
		}
		it.close()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("[%q, %q): keys-only iterator read %d keys, Scan %d", c.lo, c.hi, len(got), len(want))
		}
		var keys []string
		if err := db.ScanKeys(format.CFHooks, c.lo, c.hi, ReadOpts{}, func(k []byte) error {
			keys = append(keys, string(k))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(keys) != fmt.Sprint(want) {
			t.Fatalf("[%q, %q): ScanKeys read %d keys, Scan %d", c.lo, c.hi, len(keys), len(want))
		}
	}
}
