package format

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

type opView struct {
	ord   uint32
	field Field
	delta int64
}

// fataler is what both *testing.T and *rapid.T offer.
type fataler interface{ Fatalf(string, ...any) }

func viewOps(t fataler, ops []CounterOp) []opView {
	var out []opView
	for _, op := range ops {
		k, err := DecodeCounterKey(op.Key)
		if err != nil || k.Shard != Unsharded {
			t.Fatalf("op key %x: %v %v", op.Key, k, err)
		}
		d, err := DecodeCounterOperand(op.Operand)
		if err != nil {
			t.Fatalf("operand %x: %v", op.Operand, err)
		}
		if !bytes.Equal(op.Operand, EncodeCounterOperand(d)) {
			t.Fatalf("operand %x is not canonical", op.Operand)
		}
		out = append(out, opView{k.Ord, k.Field, d})
	}
	return out
}

func TestDeltas(t *testing.T) {
	var d Deltas
	if len(d.Ops()) != 0 || !d.Empty() {
		t.Fatal("zero Deltas has ops")
	}
	d.Add(7, FieldPending, 1)
	d.Add(3, FieldBytes, 100)
	d.Add(7, FieldBytes, 50)
	d.Add(3, FieldBytes, 20)
	d.Add(7, FieldPending, 1)
	d.Add(3, FieldDead, 1)
	d.Add(3, FieldDead, -1) // sums to zero: dropped, and on the aggregate too
	d.Add(0, FieldArchivePending, 2)
	got := viewOps(t, d.Ops())
	want := []opView{
		{0, FieldPending, 2}, {0, FieldBytes, 170}, {0, FieldArchivePending, 2},
		{3, FieldBytes, 120},
		{7, FieldPending, 2}, {7, FieldBytes, 50},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Ops =\n%v\nwant\n%v", got, want)
	}
	if d.Get(0, FieldBytes) != 170 || d.Get(3, FieldBytes) != 120 || d.Get(9, FieldBytes) != 0 {
		t.Fatal("Get")
	}
	// Ops is repeatable and Add after Ops still coalesces.
	if again := viewOps(t, d.Ops()); !slices.Equal(again, want) {
		t.Fatalf("second Ops = %v", again)
	}
	d.Add(3, FieldBytes, 1)
	if d.Get(3, FieldBytes) != 121 || d.Get(0, FieldBytes) != 171 {
		t.Fatal("Add after Ops")
	}
	d.Reset()
	if len(d.Ops()) != 0 || !d.Empty() || d.Get(3, FieldBytes) != 0 {
		t.Fatal("Reset left deltas")
	}
	d.Add(1, FieldInflight, -3)
	if got := viewOps(t, d.Ops()); !slices.Equal(got, []opView{{0, FieldInflight, -3}, {1, FieldInflight, -3}}) {
		t.Fatalf("after Reset: %v", got)
	}
}

func TestDeltasRejectsUnknownField(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Add with field 0 did not panic")
		}
	}()
	var d Deltas
	d.Add(1, 0, 1)
}

// TestDeltasModel checks Deltas against a plain map model over random batches,
// and that the output is a pure function of the multiset of Adds.
func TestDeltasModel(t *testing.T) {
	var d Deltas // reused across cases, as the migration does
	rapid.Check(t, func(t *rapid.T) {
		d.Reset()
		type add struct {
			ord   uint32
			f     Field
			delta int64
		}
		adds := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) add {
			return add{rapid.Uint32Range(0, 6).Draw(t, "ord"), genField.Draw(t, "f"), rapid.Int64Range(-3, 3).Draw(t, "d")}
		}), 0, 40).Draw(t, "adds")
		model := map[[2]uint32]int64{}
		for _, a := range adds {
			d.Add(a.ord, a.f, a.delta)
			model[[2]uint32{a.ord, uint32(a.f)}] += a.delta
			if a.ord != 0 {
				model[[2]uint32{0, uint32(a.f)}] += a.delta
			}
		}
		var want []opView
		for k, v := range model {
			if v != 0 {
				want = append(want, opView{k[0], Field(k[1]), v})
			}
		}
		slices.SortFunc(want, func(a, b opView) int {
			if a.ord != b.ord {
				return int(a.ord) - int(b.ord)
			}
			return int(a.field) - int(b.field)
		})
		ops := d.Ops()
		if got := viewOps(t, ops); !slices.Equal(got, want) {
			t.Fatalf("Ops = %v, want %v", got, want)
		}
		for i := 1; i < len(ops); i++ {
			if bytes.Compare(ops[i-1].Key, ops[i].Key) >= 0 {
				t.Fatalf("ops not sorted by key: %x, %x", ops[i-1].Key, ops[i].Key)
			}
		}
		// Same adds in reverse order: same bytes.
		var r Deltas
		for i := len(adds) - 1; i >= 0; i-- {
			r.Add(adds[i].ord, adds[i].f, adds[i].delta)
		}
		if fmt.Sprint(r.Ops()) != fmt.Sprint(ops) {
			t.Fatal("Ops depends on Add order")
		}
	})
}

// migrationStep adds what one migration step of n due rows over a few tenants adds.
func migrationStep(d *Deltas, n int) {
	for i := 0; i < n; i++ {
		ord := uint32(1 + i%37)
		d.Add(ord, FieldPending, 1)
		d.Add(ord, FieldBytes, int64(100+i))
	}
}

func TestDeltasAllocationFree(t *testing.T) {
	var d Deltas
	migrationStep(&d, MigrationStepRows)
	d.Ops()
	d.Reset()
	allocs := testing.AllocsPerRun(20, func() {
		migrationStep(&d, MigrationStepRows)
		d.Ops()
		d.Reset()
	})
	if allocs != 0 {
		t.Fatalf("a reused Deltas allocated %.1f times per step", allocs)
	}
}

func BenchmarkDeltasStep(b *testing.B) {
	var d Deltas
	b.ReportAllocs()
	for b.Loop() {
		migrationStep(&d, MigrationStepRows)
		d.Ops()
		d.Reset()
	}
}

// Each and OpsSize are Ops without its sort and its bytes: the same deltas, the same count,
// the same bytes, for any adds (rapid), zero sums and the aggregate included.
func TestDeltasEachIsOps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var d Deltas
		for range rapid.IntRange(0, 60).Draw(t, "adds") {
			ord := rapid.Uint32Range(0, 12).Draw(t, "ord")
			if rapid.Bool().Draw(t, "big ord") {
				ord = rapid.Uint32().Draw(t, "any ord")
			}
			f := rapid.SampledFrom(Fields).Draw(t, "field")
			v := rapid.OneOf(rapid.Int64Range(-3, 3), rapid.Int64()).Draw(t, "delta")
			d.Add(ord, f, v)
		}
		type op struct {
			key     string
			operand string
		}
		var each []op
		var buf []byte
		if err := d.Each(func(ord uint32, f Field, v int64) error {
			k := CounterKey{Ord: ord, Field: f, Shard: Unsharded}.Append(nil)
			buf = AppendCounterOperand(buf[:0], v)
			each = append(each, op{string(k), string(buf)})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		n, size := d.OpsSize()
		var want []op
		wantBytes := 0
		for _, o := range d.Ops() {
			want = append(want, op{string(o.Key), string(o.Operand)})
			wantBytes += len(o.Key) + len(o.Operand)
		}
		if n != len(want) || size != wantBytes {
			t.Fatalf("OpsSize %d ops, %d bytes; Ops %d, %d", n, size, len(want), wantBytes)
		}
		slices.SortFunc(each, func(a, b op) int { return strings.Compare(a.key, b.key) })
		if !slices.Equal(each, want) {
			t.Fatalf("Each, sorted: %q\nOps: %q", each, want)
		}
	})
}
