package migration

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
	"pgregory.net/rapid"
)

// A run keeps the room it was made with, whatever the size of its writes: one of small
// writes (the summed counters' puts, at 10^6 tenants six million of them) spills when its
// ops are full instead of doubling them and the sort's copy, which took a 10^7-row
// migration's heap 116 MiB up at once. Measured as the bytes the Go heap allocates while
// several runs of each kind of write are added and spilled: the spills' write buffers and
// files, and nothing that grows with the writes. The merge still yields every write in
// order.
func TestBulkRunsKeepTheirRoom(t *testing.T) {
	const limit = 1 << 20 // the smallest run made at its full size: 65,536 ops
	for _, c := range []struct {
		name   string
		valLen int // beside a counter key of 5 bytes and its value
	}{
		{"counters' puts (ops fill first)", 0},
		{"wider writes (the arena fills first)", 40},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newBulkRuns(t.TempDir(), limit)
			defer r.free()
			maxOps := cap(r.ops)
			pad := bytes.Repeat([]byte{'v'}, c.valLen)
			// Writes enough for four runs by whichever fills first.
			probe := format.CounterKey{Ord: 1 << 20, Field: 1, Shard: format.Unsharded}.Append(nil)
			per := len(probe) + len(rocks.AppendETFInt(nil, 1<<20)) + c.valLen
			n := 4 * max(maxOps, limit/per)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var key, val []byte
			for i := range n {
				// Ordinals in reverse, so that every run has sorting to do.
				k := format.CounterKey{Ord: uint32(n - i), Field: format.Field(1 + i%format.NumFields), Shard: format.Unsharded}
				key = k.Append(key[:0])
				val = append(rocks.AppendETFInt(val[:0], int64(i)), pad...)
				if err := r.add(cfCounters, bufPut, key, val); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.settle(); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			spills := len(r.spills)
			if spills < 3 {
				t.Fatalf("%d writes spilled %d runs, want at least 3 (the test writes too little)", n, spills)
			}
			// Each spill allocates its 1 MiB write buffer and its file; 1 MiB more for
			// whatever else the runtime allocates meanwhile.
			bound := uint64(spills)*(1<<20+8<<10) + 1<<20
			if got := after.TotalAlloc - before.TotalAlloc; got > bound {
				t.Errorf("%d writes in %d runs allocated %d bytes on the heap, want at most %d: the runs grew past their room (ops %d, made with %d)",
					n, spills+1, got, bound, cap(r.ops), maxOps)
			}
			if cap(r.ops) != maxOps || cap(r.tmp) != maxOps {
				t.Errorf("ops and the sort's copy hold %d and %d, made with %d", cap(r.ops), cap(r.tmp), maxOps)
			}
			var got int
			var last []byte
			err := r.merge(func(cf uint8, kind bufKind, key, val []byte) error {
				if last != nil && bytes.Compare(key, last) <= 0 {
					t.Fatalf("write %d: key %x after %x", got, key, last)
				}
				last = append(last[:0], key...)
				got++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got != n {
				t.Errorf("the merge yielded %d writes, want %d", got, n)
			}
		})
	}
}

// The merge reads its spilled runs through runReadTotal bytes of buffers at most, however
// many there are (a 10^8-row store spills some 665), and no fewer than runReadLeast a run:
// runs of a few writes each, 4 to 6,000 of them, merged in order.
func TestBulkRunsMergeWithinItsBuffers(t *testing.T) {
	for _, runs := range []int{4, 256, 1000, 6000} {
		r := newBulkRuns(t.TempDir(), 1<<20)
		// Each run spilled by hand after its three writes, keys in reverse across runs.
		var key []byte
		for i := range runs {
			for j := range 3 {
				k := format.CounterKey{Ord: uint32(runs - i), Field: format.Field(1 + j), Shard: format.Unsharded}
				key = k.Append(key[:0])
				if err := r.add(cfCounters, bufPut, key, []byte{byte(j)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.spill(); err != nil {
				t.Fatal(err)
			}
		}
		h, err := r.sources()
		if err != nil {
			t.Fatal(err)
		}
		held := 0
		for _, src := range h.srcs {
			if src.rd != nil {
				held += src.rd.Size()
			}
		}
		want := min(runs*runReadBuffer, max(runReadTotal, runs*runReadLeast))
		if held > want || held < want-runs {
			t.Errorf("%d runs: the merge's buffers hold %d bytes, want %d", runs, held, want)
		}
		var got int
		var last []byte
		if err := drainRuns(h, func(cf uint8, kind bufKind, key, val []byte) error {
			if last != nil && bytes.Compare(key, last) <= 0 {
				t.Fatalf("%d runs: write %d: key %x after %x", runs, got, key, last)
			}
			last = append(last[:0], key...)
			got++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got != 3*runs {
			t.Errorf("%d runs: the merge yielded %d writes, want %d", runs, got, 3*runs)
		}
		r.free()
	}
}

// The merge yields every write of every run in (family, key, order made) order, writes read
// where they lie in a run's buffer or, bigger than it, copied out: against a stable sort of
// the same writes (rapid), with runs spilled at random and values up to four times a run's
// read buffer. Keys share heads of 14 to 16 bytes and hold zeros, so that the merge's heads
// (headOf) settle some compares and leave others to the keys.
func TestBulkRunsMergeIsASort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// 256 KiB a run: the big writes spill it at once, the small ones when drawn.
		r := newBulkRuns(os.TempDir(), 256<<10)
		defer r.free()
		type write struct {
			cf       uint8
			key, val string
		}
		var all []write
		for i := range rapid.IntRange(0, 300).Draw(t, "writes") {
			w := write{
				cf:  rapid.SampledFrom([]uint8{cfIndex, cfCounters, cfTenants}).Draw(t, "cf"),
				key: rapid.SampledFrom(sharedHeads).Draw(t, "head") + rapid.StringMatching(`[a-c\x00]{1,3}`).Draw(t, "key"),
				val: fmt.Sprint(i),
			}
			if rapid.IntRange(0, 20).Draw(t, "big") == 0 {
				w.val += strings.Repeat("v", rapid.IntRange(runReadLeast, 4*runReadBuffer).Draw(t, "size"))
			}
			all = append(all, w)
			if err := r.add(w.cf, bufPut, []byte(w.key), []byte(w.val)); err != nil {
				t.Fatal(err)
			}
			if rapid.IntRange(0, 15).Draw(t, "spill") == 0 {
				if err := r.spill(); err != nil {
					t.Fatal(err)
				}
			}
		}
		slices.SortStableFunc(all, func(a, b write) int {
			if a.cf != b.cf {
				return int(a.cf) - int(b.cf)
			}
			return strings.Compare(a.key, b.key)
		})
		var got []write
		if err := r.merge(func(cf uint8, _ bufKind, key, val []byte) error {
			got = append(got, write{cf, string(key), string(val)})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, all) {
			t.Fatalf("merged %d writes, sorted %d; first difference at %d", len(got), len(all), firstDiff(got, all))
		}
	})
}

// sharedHeads are the starts of keys whose heads (headOf) are equal, or end within one byte
// of where the head does.
var sharedHeads = []string{"", strings.Repeat("p", 14), strings.Repeat("p", 15), strings.Repeat("p", 16)}

// Two writes whose heads differ are in their heads' order, whatever their keys' lengths and
// zeros (rapid): the merge's compares settled by the heads are the ones of (family, key).
func TestHeadOfIsTheWritesOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		write := func(label string) (uint8, []byte) {
			cf := rapid.SampledFrom([]uint8{0, 1, 254, 255}).Draw(t, label+" cf")
			key := rapid.SampledFrom(sharedHeads).Draw(t, label+" head") + rapid.StringMatching(`[\x00\x01\xff]{0,3}`).Draw(t, label+" key")
			return cf, []byte(key)
		}
		acf, akey := write("a")
		bcf, bkey := write("b")
		ha, hb := headOf(acf, akey), headOf(bcf, bkey)
		padded := func(k []byte) []byte { return append(slices.Clone(k), make([]byte, 15)...)[:15] }
		if ha == hb {
			if acf != bcf || !bytes.Equal(padded(akey), padded(bkey)) {
				t.Fatalf("(%d, %q) and (%d, %q) have the same head", acf, akey, bcf, bkey)
			}
			return
		}
		want := cmp.Compare(acf, bcf)
		if want == 0 {
			want = bytes.Compare(akey, bkey)
		}
		if got := slices.Compare(ha[:], hb[:]); got != want {
			t.Fatalf("heads of (%d, %q) and (%d, %q) compare %d, the writes %d", acf, akey, bcf, bkey, got, want)
		}
	})
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A full run is sorted and written while the next one fills: with the spiller held at the
// start of its first run, a second run's writes are all taken (the feed, and the builder
// behind it, go on), and only the spill of that second run waits for the first. Then every
// write merges in order, the runs' order kept among equal keys. In line, each spill held the
// feed for its sort and write, one core idle.
func TestBulkRunsSpillWhileTheNextFills(t *testing.T) {
	const limit = 1 << 20
	r := newBulkRuns(t.TempDir(), limit)
	defer r.free()
	started, release := make(chan struct{}, 4), make(chan struct{})
	r.writing = func() {
		started <- struct{}{}
		<-release
	}
	var key []byte
	add := func(i int) error {
		key = format.CounterKey{Ord: uint32(1 + i%1000), Field: 1, Shard: format.Unsharded}.Append(key[:0])
		return r.add(cfCounters, bufPut, key, format.EncodeU32(uint32(i)))
	}
	// The first run, to its spill: its last write hands it to the spiller, which is held
	// as it starts on it. Then a second run's worth of writes, all taken while the first is
	// held, but for the last: its spill (the room full again) would wait for the first
	// run's. A run's ops fill before its arena here, so it spills at its maxOps-th write.
	n := 0
	filled := make(chan error, 1)
	go func() {
		for range r.maxOps {
			if err := add(n); err != nil {
				filled <- err
				return
			}
			n++
		}
		<-started
		for range r.maxOps - 1 {
			if err := add(n); err != nil {
				filled <- err
				return
			}
			n++
		}
		filled <- nil
	}()
	select {
	case err := <-filled:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		close(release)
		<-filled // the writes go on once the spill is let go: done before the runs are freed
		t.Fatal("the writes of the next run waited for the spill of the one before")
	}
	close(release)
	if err := r.settle(); err != nil {
		t.Fatal(err)
	}
	var got int
	last := map[string]uint32{}
	if err := r.merge(func(_ uint8, _ bufKind, k, v []byte) error {
		i := binary.BigEndian.Uint32(v)
		if p, ok := last[string(k)]; ok && i <= p {
			t.Fatalf("key %x: write %d merged after %d", k, i, p)
		}
		last[string(k)] = i
		got++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Errorf("merged %d writes, added %d", got, n)
	}
}

// sortRun is a stable sort by family and key, whether the writes of one first word come in
// their second word's order (the fast path, which skips those passes) or not: keys that
// share their first eight bytes often and differ after them, drawn in any order, in order,
// or in order but for a few swapped pairs, against a stable comparison sort (rapid).
func TestSortRunIsAStableSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type write struct {
			cf       uint8
			key, val string
		}
		var all []write
		for i := range rapid.IntRange(0, 400).Draw(t, "writes") {
			k := []byte{rapid.SampledFrom([]byte("ADFXax")).Draw(t, "letter")}
			k = append(k, 0, 0, 0, byte(rapid.IntRange(0, 3).Draw(t, "ord")), 0, 1, 2)
			for range rapid.IntRange(0, 16).Draw(t, "tail") {
				k = append(k, byte(rapid.IntRange(0, 2).Draw(t, "byte")))
			}
			all = append(all, write{
				cf:  rapid.SampledFrom([]uint8{cfIndex, cfIndex, cfIndex, cfCounters}).Draw(t, "cf"),
				key: string(k[:rapid.IntRange(1, len(k)).Draw(t, "len")]),
				val: fmt.Sprint(i),
			})
		}
		byKey := func(a, b write) int {
			if a.cf != b.cf {
				return int(a.cf) - int(b.cf)
			}
			return strings.Compare(a.key, b.key)
		}
		switch rapid.IntRange(0, 2).Draw(t, "order") {
		case 1:
			slices.SortStableFunc(all, byKey)
		case 2:
			slices.SortStableFunc(all, byKey)
			for range rapid.IntRange(1, 4).Draw(t, "swaps") {
				if len(all) > 1 {
					i := rapid.IntRange(0, len(all)-2).Draw(t, "swap")
					all[i], all[i+1] = all[i+1], all[i]
				}
			}
		}
		r := &bulkRuns{limit: 1 << 30}
		for _, w := range all {
			if err := r.add(w.cf, bufPut, []byte(w.key), []byte(w.val)); err != nil {
				t.Fatal(err)
			}
		}
		sortRun(r.ops, nil, r.arena)
		want := slices.Clone(all)
		slices.SortStableFunc(want, byKey)
		for i, op := range r.ops {
			got := write{op.cf, string(r.arena[op.k:op.v]), string(r.arena[op.v:op.end])}
			if got != want[i] {
				t.Fatalf("write %d of %d: got %v, want %v", i, len(want), got, want[i])
			}
		}
	})
}

// sources are the runs (the tests' look at the runs alone; the write stage cuts them in
// halves, bulksplit.go), each at its first write (the one in memory last), all of them as
// one half.
func (r *bulkRuns) sources() (*runMerge, error) {
	if err := r.settle(); err != nil {
		return nil, err
	}
	r.sort()
	return r.halfSources(r.whole(), runReadSize(len(r.spills)))
}

// merge calls fn with every write of every run in the order of (family, key, the order
// they were made in); key and val are valid until fn returns.
func (r *bulkRuns) merge(fn func(cf uint8, kind bufKind, key, val []byte) error) error {
	h, err := r.sources()
	if err != nil {
		return err
	}
	return drainRuns(h, fn)
}
