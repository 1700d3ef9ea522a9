package migration

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The counter sums take 48.75 bytes an ordinal, whatever the fields merged into (a sum of 8
// bytes for each of the six fields, a bit for whether it was merged into), and give back
// every merged key once, in key order, with its sum: at 10^6 tenants the table's 63 bytes an
// ordinal (a slot for the field 0 no counter has, a byte for the bit) were 60 MiB of a
// 10^7-row migration's peak RSS. The table is mapped once for every ordinal below its limit,
// and never moves: grown by doubling, it held the old mapping and the new one's copy at once.
func TestCounterSumsTable(t *testing.T) {
	for _, c := range []struct {
		name   string
		ords   uint32
		fields func(ord uint32) []format.Field // the fields merged into, in steps' order
	}{
		{"every field of every ordinal", 5000, func(uint32) []format.Field { return format.Fields }},
		{"one field of every third ordinal", 5000, func(ord uint32) []format.Field {
			if ord%3 != 0 {
				return nil
			}
			return []format.Field{format.Fields[ord%format.NumFields]}
		}},
		{"the aggregate and the last ordinal", 5000, func(ord uint32) []format.Field {
			if ord != 0 && ord != 4999 {
				return nil
			}
			return []format.Field{format.FieldBytes, format.FieldPending}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := counterSums{limit: counterSumOrds}
			defer s.free()
			want := map[string]int64{}
			var order []string
			var key []byte
			var at *int64 // where the sums are, from the first add on
			moves := 0
			// Two passes, so that every key is merged into twice.
			for pass := int64(1); pass <= 2; pass++ {
				for ord := range c.ords {
					for _, f := range c.fields(ord) {
						v := pass * (int64(ord)*10 + int64(f) - 30000)
						key = format.CounterKey{Ord: ord, Field: f, Shard: format.Unsharded}.Append(key[:0])
						if !s.add(ord, f, v) {
							t.Fatalf("%s not taken", format.CounterKey{Ord: ord, Field: f, Shard: format.Unsharded})
						}
						if p := unsafe.SliceData(s.sums.S()); p != at {
							if at != nil {
								moves++
							}
							at = p
						}
						if _, ok := want[string(key)]; !ok {
							order = append(order, string(key))
						}
						want[string(key)] += v
					}
				}
			}
			if moves > 0 {
				t.Errorf("the sums moved %d times as they grew, want 0: mapped once for %d ordinals", moves, s.limit)
			}
			// The slots the highest ordinal merged into needs, and its bits: no more.
			top := 0
			for k := range want {
				ck, _ := format.DecodeCounterKey([]byte(k))
				top = max(top, int(ck.Ord+1))
			}
			if got, most := s.sums.Len()*8+s.seen.Len()*8, top*format.NumFields*8+top*format.NumFields/8+8; got > most {
				t.Errorf("the sums of %d ordinals take %d bytes, want at most %d (48.75 an ordinal)", top, got, most)
			}
			var got []string
			err := s.each(func(k, v []byte) error {
				if n := len(got); n > 0 && bytes.Compare([]byte(got[n-1]), k) >= 0 {
					return fmt.Errorf("key %x after %x", k, got[n-1])
				}
				got = append(got, string(k))
				if w := rocks.AppendETFInt(nil, want[string(k)]); !bytes.Equal(v, w) {
					return fmt.Errorf("%x: value %x, want %x", k, v, w)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(order) {
				t.Errorf("%d keys given back, %d merged into", len(got), len(order))
			}
		})
	}
}
