package rocks

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// ScanFills hands on every entry Scan does, in the same order and bounds,
// each fill in a buffer of its own: fills kept to the end (and one larger
// than the pool's buffers) are still whole then, and released ones go back
// to the pool without touching those kept, nor those detached (whose pool
// buffer went back, to be filled again). Stop ends the scan cleanly.
func TestScanFills(t *testing.T) {
	db := hooksOf(t, manyFillsRows, manyFillsVal)
	val := manyFillsVal
	for _, c := range []struct{ lo, hi []byte }{{nil, nil}, {[]byte("k000100"), []byte("k009000")}} {
		var want []string
		if err := db.Scan(format.CFHooks, c.lo, c.hi, ReadOpts{}, func(k, _ []byte) error {
			want = append(want, string(k))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var kept []*Fill
		err := db.ScanFills(format.CFHooks, c.lo, c.hi, ReadOpts{}, func(f *Fill) error {
			if f.Len() == 0 {
				t.Fatal("an empty fill")
			}
			if len(kept)%2 == 1 {
				f.Release() // to the pool, for the next fills
				kept = append(kept, nil)
				return nil
			}
			if len(kept)%4 == 2 {
				size := f.Size()
				f.Detach()
				if f.Size() != size {
					t.Fatalf("detached, a fill of %d bytes has %d", size, f.Size())
				}
			}
			kept = append(kept, f)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range kept {
			if f == nil {
				continue
			}
			off := 0
			for range f.Len() {
				k, v, next := f.Entry(off)
				got = append(got, string(k))
				var at int
				if _, err := fmt.Sscanf(string(k), "k%06d", &at); err != nil || !bytes.Equal(v, val(at)) {
					t.Fatalf("%s: value of %d bytes %x... changed while its fill was kept", k, len(v), v[:min(len(v), 4)])
				}
				off = next
			}
			if k, _ := f.Last(); string(k) != got[len(got)-1] {
				t.Fatalf("Last is %s, the fill's last entry %s", k, got[len(got)-1])
			}
		}
		if len(got) == 0 || got[0] != want[0] {
			t.Fatalf("[%q, %q): first kept key %v, want %s", c.lo, c.hi, got[:min(1, len(got))], want[0])
		}
		for j := 1; j < len(got); j++ {
			if got[j] <= got[j-1] {
				t.Fatalf("keys out of order: %s after %s", got[j], got[j-1])
			}
		}
	}
	calls := 0
	if err := db.ScanFills(format.CFHooks, nil, nil, ReadOpts{}, func(f *Fill) error {
		calls++
		return Stop
	}); err != nil || calls != 1 {
		t.Fatalf("Stop: %d calls, %v", calls, err)
	}
}

// Every fill of a scan, in order, is the entries Scan hands on: nothing is
// lost or handed twice between fills.
func TestScanFillsHandsEveryEntryOnce(t *testing.T) {
	const n = 5*fillMaxEntries + 17
	db := hooksOf(t, n, func(i int) []byte { return []byte(fmt.Sprint(i)) })
	var want, got bytes.Buffer
	if err := db.Scan(format.CFHooks, nil, nil, ReadOpts{}, func(k, v []byte) error {
		fmt.Fprintf(&want, "%s=%s\n", k, v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.ScanFills(format.CFHooks, nil, nil, ReadOpts{}, func(f *Fill) error {
		defer f.Release()
		for i, off := 0, 0; i < f.Len(); i++ {
			k, v, next := f.Entry(off)
			fmt.Fprintf(&got, "%s=%s\n", k, v)
			off = next
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("ScanFills read %d bytes of entries, Scan %d", got.Len(), want.Len())
	}
}

// manyFillsRows hooks of manyFillsVal's values make a store read in several fills of the
// most entries, with entries larger than a fill's buffer among them (every thousandth).
const manyFillsRows = 3*fillMaxEntries + 5

func manyFillsVal(i int) []byte {
	size := 10
	if i%1000 == 7 {
		size = fillBufSize + 3
	}
	return bytes.Repeat([]byte{byte(i)}, size)
}
