package rocks

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"pgregory.net/rapid"
)

// firstOfEachPrefix is the slow path ReadOpts.FirstOfEachPrefix stands for: every key of the
// scan, keeping a key only when its first n bytes differ from the last kept key's (a key
// shorter than n always kept).
func firstOfEachPrefix(keys [][]byte, n int) []string {
	var out []string
	var last []byte
	for _, k := range keys {
		if len(k) >= n && last != nil && bytes.Equal(k[:n], last) {
			continue
		}
		last = nil
		if len(k) >= n {
			last = k[:n]
		}
		out = append(out, string(k))
	}
	return out
}

// TestScanFirstOfEachPrefix: a scan that seeks past each prefix's other keys hands on what a
// scan of every key filtered to each prefix's first does, for any keys, prefix length and
// bounds: prefixes ending in 0xff bytes (whose next prefix carries), all 0xff (no next one),
// keys shorter than the prefix, and runs longer than a fill.
func TestScanFirstOfEachPrefix(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	alphabet := []byte{0x00, 0x01, 0x7f, 0xfe, 0xff}
	keyGen := rapid.Custom(func(t *rapid.T) []byte {
		n := rapid.IntRange(0, 5).Draw(t, "len")
		k := []byte{'k'}
		for i := 0; i < n; i++ {
			k = append(k, rapid.SampledFrom(alphabet).Draw(t, "b"))
		}
		return k
	})
	round := 0
	rapid.Check(t, func(t *rapid.T) {
		round++
		cf := format.CFHooks
		// Keys under a round's own two bytes, or under 0xffff, where an all-0xff prefix has
		// no next one and the scan must end there (and earlier rounds' keys are met too).
		pre, lo, hi := binary.BigEndian.AppendUint16(nil, uint16(round)), []byte(nil), []byte(nil)
		if rapid.IntRange(0, 4).Draw(t, "top") == 0 {
			pre = []byte{0xff, 0xff}
			lo = pre
		} else {
			lo, hi = pre, binary.BigEndian.AppendUint16(nil, uint16(round+1)) // round < 0xfffe
		}
		keys := rapid.SliceOfNDistinct(keyGen, 0, 60, func(k []byte) string { return string(k) }).Draw(t, "keys")
		// A long run under one prefix: more keys than a first fill copies.
		if rapid.Bool().Draw(t, "run") {
			for i := 0; i < 3*fillFirstEntries; i++ {
				keys = append(keys, []byte(fmt.Sprintf("kr%03d", i)))
			}
		}
		b := NewBatch()
		for _, k := range keys {
			b.Put(cf, append(slices.Clone(pre), k...), []byte{1})
		}
		if err := db.Write(b, false); err != nil {
			t.Fatal(err)
		}
		n := len(pre) + rapid.IntRange(1, 4).Draw(t, "prefix")
		var all [][]byte
		if err := db.Scan(cf, lo, hi, ReadOpts{}, func(k, _ []byte) error {
			all = append(all, slices.Clone(k))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, s := range firstOfEachPrefix(all, n) {
			want = append(want, fmt.Sprintf("%x", s))
		}
		var got []string
		if err := db.Scan(cf, lo, hi, ReadOpts{FirstOfEachPrefix: n}, func(k, _ []byte) error {
			got = append(got, fmt.Sprintf("%x", k))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("prefix %d bytes:\n got  %v\n want %v", n, got, want)
		}
	})
}
