package migration

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// sortOps orders any ops as the comparison sort does: random keys of every
// length, shared 8-byte prefixes (whole runs of them, as one tenant's rows
// make), the four families, any count around the radix threshold.
func TestSortOpsIsTheComparisonSort(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		var o opBuf
		n := rapid.IntRange(0, 400).Draw(rt, "ops")
		prefixes := rapid.SliceOfN(rapid.SliceOfN(rapid.Byte(), 0, 9), 1, 6).Draw(rt, "prefixes")
		for i := range n {
			key := append([]byte{}, prefixes[rapid.IntRange(0, len(prefixes)-1).Draw(rt, "prefix")]...)
			key = append(key, rapid.SliceOfN(rapid.Byte(), 0, 6).Draw(rt, "rest")...)
			key = binary.BigEndian.AppendUint32(key, uint32(i)) // distinct keys
			o.add(uint8(rapid.IntRange(0, len(bufCFs)-1).Draw(rt, "cf")), bufKind(i%3), key, []byte{byte(i)})
		}
		want := slices.Clone(o.ops)
		slices.SortFunc(want, o.cmp)
		o.sortOps()
		for i := range want {
			if o.cmp(o.ops[i], want[i]) != 0 || !bytes.Equal(o.val(o.ops[i]), o.val(want[i])) {
				rt.Fatalf("op %d: %q of family %d, want %q of family %d", i, o.key(o.ops[i]), o.ops[i].cf, o.key(want[i]), want[i].cf)
			}
		}
	})
}

// BenchmarkSortOps: a step's ops, as a due step writes them (go test -bench SortOps).
func BenchmarkSortOps(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var o opBuf
	at := uint64(1796032800000)
	for range 500 {
		ord := uint32(r.IntN(100_000) + 1)
		at += uint64(r.IntN(50))
		seq := uint64(r.IntN(1 << 30))
		old := binary.BigEndian.AppendUint64([]byte("d"), at)
		o.del(cfIndex, binary.BigEndian.AppendUint64(old, seq))
		nk := binary.BigEndian.AppendUint32([]byte("D"), ord)
		nk = binary.BigEndian.AppendUint64(nk, at)
		o.put(cfIndex, binary.BigEndian.AppendUint64(nk, seq), []byte{1, 2, 3})
		ak := binary.BigEndian.AppendUint32([]byte("A"), ord)
		o.put(cfIndex, binary.BigEndian.AppendUint64(ak, seq), nil)
		ck := binary.BigEndian.AppendUint32(nil, ord)
		o.merge(cfCounters, append(ck, "pending"...), []byte{131, 97, 1})
	}
	orig := slices.Clone(o.ops)
	for _, c := range []struct {
		name string
		sort func()
	}{
		{"radix", o.sortOps},
		{"comparison", func() { slices.SortFunc(o.ops, o.cmp) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				copy(o.ops, orig)
				c.sort()
			}
		})
	}
}
