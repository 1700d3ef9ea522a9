package migration

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/format/etf"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// expectV3 computes, independently of the package's code, the logical content
// a correct 2 -> 3 migration of the store in dir makes, with start time
// start: the contract's phase table applied row by row.
func expectV3(t testing.TB, dir string, start uint64) storetest.Contents {
	t.Helper()
	in := storetest.Dump(t, dir)
	out := storetest.Contents{}
	for cf, m := range in {
		out[cf] = map[string]string{}
		for k, v := range m {
			out[cf][k] = v
		}
	}
	for _, cf := range []string{format.CFTenants, format.CFCounters} {
		if out[cf] == nil {
			out[cf] = map[string]string{}
		}
	}
	idx := out[format.CFIndex]
	put := func(cf string, k, v []byte) { out[cf][string(k)] = string(v) }

	ords := map[string]uint32{}
	next := uint32(1)
	counters := map[[2]uint32]int64{}
	add := func(ord uint32, f format.Field, d int64) {
		counters[[2]uint32{ord, uint32(f)}] += d
		counters[[2]uint32{0, uint32(f)}] += d
	}
	ordOf := func(seq uint64) uint32 {
		h, ok := in[format.CFHooks][string(binary.BigEndian.AppendUint64(nil, seq))]
		tenant, _ := format.TenantOf([]byte(h), ok)
		if o, ok := ords[tenant]; ok {
			return o
		}
		ords[tenant] = next
		put(format.CFTenants, append([]byte{'t'}, binary.BigEndian.AppendUint32(nil, next)...), []byte(tenant))
		put(format.CFTenants, append([]byte{'n'}, tenant...), binary.BigEndian.AppendUint32(nil, next))
		next++
		return next - 1
	}
	keys := slices.Sorted(maps.Keys(in[format.CFIndex]))
	rows := func(p byte, hi []byte) [][]byte {
		var ks [][]byte
		for _, k := range keys {
			if len(k) > 1 && k[0] == p && bytes.Compare([]byte(k), hi) < 0 {
				ks = append(ks, []byte(k))
			}
		}
		return ks
	}
	u32 := func(v string) uint32 { return binary.BigEndian.Uint32([]byte(v)) }
	for _, k := range rows('d', []byte{'d', 0xFF}) {
		if len(k) != 19 || k[1]&0x80 != 0 || k[9]&0x80 != 0 {
			continue
		}
		at, seq := binary.BigEndian.Uint64(k[1:]), binary.BigEndian.Uint64(k[9:])
		size := u32(in[format.CFIndex][string(k)])
		ord := ordOf(seq)
		kind, f := byte(0), format.FieldPending
		if at > start {
			kind, f = 1, format.FieldScheduled
		}
		put(format.CFIndex, slices.Concat([]byte{'D'}, binary.BigEndian.AppendUint32(nil, ord), k[1:]), append(binary.BigEndian.AppendUint32(nil, size), kind))
		put(format.CFIndex, slices.Concat([]byte{'A'}, binary.BigEndian.AppendUint64(nil, at/1000), binary.BigEndian.AppendUint32(nil, ord)), nil)
		add(ord, f, 1)
		add(ord, format.FieldBytes, int64(size))
	}
	for _, k := range rows('f', []byte{'f', 0xFF}) {
		if len(k) != 11 || k[1]&0x80 != 0 {
			continue
		}
		seq := binary.BigEndian.Uint64(k[1:])
		v := in[format.CFIndex][string(k)]
		ord := ordOf(seq)
		put(format.CFIndex, slices.Concat([]byte{'F'}, binary.BigEndian.AppendUint32(nil, ord), k[1:]), []byte(v))
		add(ord, format.FieldInflight, 1)
		add(ord, format.FieldBytes, int64(u32(v)))
	}
	for _, k := range rows('x', []byte{'x', 0xFF}) {
		if len(k) != 19 || k[1]&0x80 != 0 || k[9]&0x80 != 0 {
			continue
		}
		seq := binary.BigEndian.Uint64(k[9:])
		ord := ordOf(seq)
		tv, err := etf.Decode([]byte(in[format.CFIndex][string(k)]))
		if err != nil {
			t.Fatalf("oracle: dead value: %v", err)
		}
		tup := tv.(etf.Tuple)
		nv, err := etf.Encode(etf.Tuple{tup[0], tup[1], int64(ord)})
		if err != nil {
			t.Fatal(err)
		}
		put(format.CFIndex, k, nv)
		put(format.CFIndex, slices.Concat([]byte{'X'}, binary.BigEndian.AppendUint32(nil, ord), k[1:]), nil)
		var size int64
		if dv, ok := in[format.CFDeliveries][string(k[9:])]; ok {
			if d, err := format.DecodeDelivery([]byte(dv)); err == nil {
				size = int64(d.Size)
			}
		}
		add(ord, format.FieldDead, 1)
		add(ord, format.FieldBytes, size)
	}
	for _, k := range rows('a', []byte{'a', 0xFF}) {
		if len(k) != 9 || k[1]&0x80 != 0 {
			continue
		}
		seq := binary.BigEndian.Uint64(k[1:])
		ord := ordOf(seq)
		v := in[format.CFIndex][string(k)]
		put(format.CFIndex, k, append([]byte(v), binary.BigEndian.AppendUint32(nil, ord)...))
		add(ord, format.FieldArchivePending, 1)
	}
	for k := range idx {
		if k[0] == 'd' || k[0] == 'f' {
			delete(idx, k)
		}
	}
	for _, f := range newFamilies {
		put(f.CF, f.Lo, nil)
		put(f.CF, f.Hi, nil)
	}
	for k, v := range counters {
		if v != 0 {
			put(format.CFCounters, append(binary.BigEndian.AppendUint32(nil, k[0]), byte(k[1])), etf.AppendInt(nil, v))
		}
	}
	meta := out[format.CFDefault]
	delete(meta, format.KeyMigrating3)
	delete(meta, format.KeyMigrating3Now)
	meta[format.KeyFormat] = string(binary.BigEndian.AppendUint32(nil, 3))
	meta[format.KeyNextOrd] = string(binary.BigEndian.AppendUint32(nil, next))
	return out
}

// verifyHealthy runs the project's own checker (counters verify) over a
// migrated store: it must find it healthy, every counter equal to its fold.
func verifyHealthy(t testing.TB, dir string) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, err := health.Verify(context.Background(), st, health.VerifyOptions{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if !rep.Healthy {
		b, _ := json.MarshalIndent(rep, "", "  ")
		t.Fatalf("verify: %s\n%s", rep.Summary(), b)
	}
}

// foldCounters recounts, from the rows of a migrated store alone, what every
// counter must hold (the contract's field definitions), and compares that
// with the counters family: invariant 1, every ordinal and the aggregate. It
// also checks the other invariants the migration establishes.
func foldCounters(t testing.TB, dir string) {
	t.Helper()
	c := storetest.Dump(t, dir)
	idx, cnt, ten := c[format.CFIndex], c[format.CFCounters], c[format.CFTenants]
	want := map[string]int64{}
	add := func(ord uint32, f format.Field, d int64) {
		want[string(format.CounterKeyBytes(ord, f))] += d
		want[string(format.CounterKeyBytes(0, f))] += d
	}
	ordsUsed := map[uint32]bool{}
	for k, v := range idx {
		kb := []byte(k)
		if format.FamDue.IsSentinel(kb) || format.FamInflight.IsSentinel(kb) || format.FamDeadByTenant.IsSentinel(kb) ||
			format.FamDead.IsSentinel(kb) || format.FamArchive.IsSentinel(kb) || format.FamActive.IsSentinel(kb) {
			continue
		}
		switch k[0] {
		case 'd', 'f':
			t.Errorf("format 2 key %v left behind", format.DecodeKey(format.CFIndex, kb))
		case 'D':
			dk, err := format.DecodeDueKey(kb)
			if err != nil {
				t.Fatal(err)
			}
			dv, err := format.DecodeDueValue([]byte(v))
			if err != nil {
				t.Fatal(err)
			}
			add(dk.Ord, dv.Field(), 1)
			add(dk.Ord, format.FieldBytes, int64(dv.Size))
			ordsUsed[dk.Ord] = true
			if _, ok := idx[string(dk.ActiveKey().Encode())]; !ok {
				t.Errorf("%v has no active marker", dk)
			}
		case 'F':
			fk, err := format.DecodeInflightKey(kb)
			if err != nil {
				t.Fatal(err)
			}
			size, err := format.DecodeSize([]byte(v))
			if err != nil {
				t.Fatal(err)
			}
			add(fk.Ord, format.FieldInflight, 1)
			add(fk.Ord, format.FieldBytes, int64(size))
			ordsUsed[fk.Ord] = true
		case 'x':
			xk, err := format.DecodeDeadKey(kb)
			if err != nil {
				continue // a stray, left as it was
			}
			xv, err := format.DecodeDeadValue([]byte(v))
			if err != nil || !xv.HasOrd {
				t.Errorf("%v: value %x has no ord (%v)", xk, v, err)
				continue
			}
			if _, ok := idx[string(xk.ByTenant(xv.Ord).Encode())]; !ok {
				t.Errorf("%v has no dead-by-tenant row", xk)
			}
			var size int64
			if dv, ok := c[format.CFDeliveries][string(format.DeliveryKey{Seq: xk.Seq, Sink: xk.Sink}.Encode())]; ok {
				if d, err := format.DecodeDelivery([]byte(dv)); err == nil {
					size = int64(d.Size)
				}
			}
			add(xv.Ord, format.FieldDead, 1)
			add(xv.Ord, format.FieldBytes, size)
			ordsUsed[xv.Ord] = true
		case 'X':
			xk, err := format.DecodeDeadByTenantKey(kb)
			if err != nil {
				t.Fatal(err)
			}
			xv, err := format.DecodeDeadValue([]byte(idx[string(xk.DeadKey().Encode())]))
			if err != nil || xv.Ord != xk.Ord {
				t.Errorf("%v: its dead row is missing or has another ord", xk)
			}
		case 'a':
			if _, err := format.DecodeArchiveKey(kb); err != nil {
				continue
			}
			av, err := format.DecodeArchiveValue([]byte(v))
			if err != nil || !av.HasOrd {
				t.Errorf("archive %x: value %x has no ord", k, v)
				continue
			}
			add(av.Ord, format.FieldArchivePending, 1)
			ordsUsed[av.Ord] = true
		}
	}
	got := map[string]int64{}
	for k, v := range cnt {
		kb := []byte(k)
		if format.FamCounters.IsSentinel(kb) {
			continue
		}
		ck, err := format.DecodeCounterKey(kb)
		if err != nil {
			t.Fatalf("counter key %x: %v", k, err)
		}
		n, err := format.DecodeCounterValue([]byte(v))
		if err != nil {
			t.Fatalf("%v: %v", ck, err)
		}
		got[string(format.CounterKeyBytes(ck.Ord, ck.Field))] += n
		ordsUsed[ck.Ord] = true
	}
	for k := range want {
		if want[k] == 0 {
			delete(want, k)
		}
	}
	for k := range got {
		if got[k] == 0 {
			delete(got, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(union(want, got))) {
		if want[k] != got[k] {
			ck, _ := format.DecodeCounterKey([]byte(k))
			t.Errorf("%v = %d, the fold says %d", ck, got[k], want[k])
		}
	}
	// t and n agree both ways, ordinals are dense and below m:next_ord.
	next, err := format.DecodeU32([]byte(c[format.CFDefault][format.KeyNextOrd]))
	if err != nil {
		t.Fatalf("m:next_ord: %v", err)
	}
	byOrd := map[uint32]string{}
	for k, v := range ten {
		kb := []byte(k)
		if format.FamTenantByOrd.IsSentinel(kb) || format.FamOrdByTenant.IsSentinel(kb) {
			continue
		}
		switch k[0] {
		case 't':
			tk, err := format.DecodeTenantByOrdKey(kb)
			if err != nil {
				t.Fatal(err)
			}
			byOrd[tk.Ord] = v
			if back := ten[string(format.OrdByTenantKey{Tenant: v}.Encode())]; back != string(format.EncodeU32(tk.Ord)) {
				t.Errorf("%v = %q but n%q = %x", tk, v, v, back)
			}
		case 'n':
			ord, err := format.DecodeU32([]byte(v))
			if err != nil || ten[string(format.TenantByOrdKey{Ord: ord}.Encode())] != k[1:] {
				t.Errorf("n%q = %x has no matching t row", k[1:], v)
			}
		}
	}
	if len(byOrd) != int(next-1) {
		t.Errorf("%d tenants, m:next_ord = %d", len(byOrd), next)
	}
	for o := uint32(1); o < next; o++ {
		if _, ok := byOrd[o]; !ok {
			t.Errorf("ordinal %d below m:next_ord has no tenant", o)
		}
	}
	for o := range ordsUsed {
		if _, ok := byOrd[o]; o != 0 && !ok {
			t.Errorf("ordinal %d is used but has no t row", o)
		}
	}
	for _, k := range []string{format.KeyMigrating3, format.KeyMigrating3Now} {
		if _, ok := c[format.CFDefault][k]; ok {
			t.Errorf("%s left behind", k)
		}
	}
	if f := c[format.CFDefault][format.KeyFormat]; f != string(format.EncodeU32(3)) {
		t.Errorf("m:format = %x, want 3", f)
	}
}

func union(a, b map[string]int64) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}
