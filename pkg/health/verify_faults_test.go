package health

import (
	"errors"
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Each fault is planted in a copy of the v3 fixture, which is healthy
// (TestVerifyHealthyFixtures); verify must find it and name its keys.
func TestVerifyFindsPlantedFaults(t *testing.T) {
	type planted struct {
		// plant writes the fault and returns what to expect.
		plant func(t *testing.T, st *rocks.Store, b *rocks.Batch) want
	}
	cases := map[string]planted{
		"extra merge operand": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			ord := vtOrd(t, st, "acme")
			k := format.CounterKeyBytes(ord, format.FieldPending)
			b.Merge(format.CFCounters, k, format.EncodeCounterOperand(3))
			return want{mismatch: &CounterMismatch{Field: "pending", Delta: -3, Key: keyRef(format.CFCounters, k)}, ord: ord}
		}},
		"extra merge operand on a sharded aggregate": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			k := format.CounterKey{Ord: 0, Field: format.FieldBytes, Shard: 7}.Encode()
			b.Merge(format.CFCounters, k, format.EncodeCounterOperand(-40))
			return want{mismatch: &CounterMismatch{Field: "bytes", Delta: 40,
				Key: keyRef(format.CFCounters, format.CounterKeyBytes(0, format.FieldBytes))}}
		}},
		"missing active marker": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			row := vtRows(t, st, format.FamDue, 1, nil)[0]
			dk, _ := format.DecodeDueKey(row[0])
			mk := dk.ActiveKey().Encode()
			b.Delete(format.CFIndex, mk)
			return want{check: CheckMarkerMissing, key: mk, related: [][]byte{row[0]}}
		}},
		"missing X row": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			row := vtRows(t, st, format.FamDead, 1, nil)[0]
			dk, _ := format.DecodeDeadKey(row[0])
			dv, _ := format.DecodeDeadValue(row[1])
			xk := dk.ByTenant(dv.Ord).Encode()
			b.Delete(format.CFIndex, xk)
			return want{check: CheckDeadByTenantMissing, key: row[0], related: [][]byte{xk}}
		}},
		"orphan X row": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			ord := vtOrd(t, st, "acme")
			xk := format.DeadByTenantKey{Ord: ord, At: 1_700_000_000_000, Seq: 1 << 40, Sink: 9}.Encode()
			b.Put(format.CFIndex, xk, nil)
			return want{check: CheckDeadMissing, key: xk,
				related: [][]byte{format.DeadKey{At: 1_700_000_000_000, Seq: 1 << 40, Sink: 9}.Encode()}}
		}},
		"X row under another ordinal": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			row := vtRows(t, st, format.FamDead, 1, nil)[0]
			dk, _ := format.DecodeDeadKey(row[0])
			dv, _ := format.DecodeDeadValue(row[1])
			other := vtOrd(t, st, "globex")
			if other == dv.Ord {
				other = vtOrd(t, st, "acme")
			}
			b.Delete(format.CFIndex, dk.ByTenant(dv.Ord).Encode())
			moved := dk.ByTenant(other).Encode()
			b.Put(format.CFIndex, moved, nil)
			return want{check: CheckDeadMissing, key: moved, related: [][]byte{row[0]}, also: []string{CheckDeadByTenantMissing}}
		}},
		"deleted hi sentinel": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			b.Delete(format.CFIndex, format.FamDue.Hi)
			return want{corrupt: format.FamDue.Hi}
		}},
		"deleted lo sentinel": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			b.Delete(format.CFTenants, format.FamOrdByTenant.Lo)
			return want{corrupt: format.FamOrdByTenant.Lo}
		}},
		"bad merge operand": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			k := format.CounterKeyBytes(vtOrd(t, st, "globex"), format.FieldDead)
			b.Merge(format.CFCounters, k, []byte{131, 104, 2, 119, 7, 'i', 'n', 't', '_', 's', 'u', 'b', 97, 1})
			return want{corrupt: k}
		}},
		"tenant map that disagrees with itself": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			acme, globex := vtOrd(t, st, "acme"), vtOrd(t, st, "globex")
			nk := format.OrdByTenantKey{Tenant: "acme"}.Encode()
			b.Put(format.CFTenants, nk, format.EncodeU32(globex))
			return want{check: CheckTenantMaps, key: nk, related: [][]byte{format.TenantByOrdKey{Ord: globex}.Encode()},
				more: []want{{check: CheckTenantMaps, key: format.TenantByOrdKey{Ord: acme}.Encode(), related: [][]byte{nk}}}}
		}},
		"delivery row with two index keys": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			row := vtRows(t, st, format.FamInflight, 1, nil)[0]
			fk, _ := format.DecodeInflightKey(row[0])
			size, _ := format.DecodeSize(row[1])
			dk := format.DueKey{Ord: fk.Ord, At: 1_800_000_000_000, Seq: fk.Seq, Sink: fk.Sink}
			b.Put(format.CFIndex, dk.Encode(), format.DueValue{Size: size}.Encode())
			b.Put(format.CFIndex, dk.ActiveKey().Encode(), nil)
			var d format.Deltas // the counters agree: only the second key is wrong
			d.Add(fk.Ord, format.FieldPending, 1)
			d.Add(fk.Ord, format.FieldBytes, int64(size))
			for _, op := range d.Ops() {
				b.Merge(format.CFCounters, op.Key, op.Operand)
			}
			return want{check: CheckDeliveryIndexKeys, key: format.DeliveryKey{Seq: fk.Seq, Sink: fk.Sink}.Encode(),
				related: [][]byte{dk.Encode(), row[0]}}
		}},
		"format 2 dead value": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			row := vtRows(t, st, format.FamDead, 1, nil)[0]
			dv, _ := format.DecodeDeadValue(row[1])
			dv.HasOrd = false
			b.Put(format.CFIndex, row[0], dv.Encode())
			// Its X row now has no x row of its ordinal; the counters no
			// longer name the tenant's dead row.
			return want{check: CheckDeadWithoutOrd, key: row[0], also: []string{CheckDeadMissing}, mismatches: true}
		}},
		"format 2 archive value": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			row := vtRows(t, st, format.FamArchive, 1, nil)[0]
			b.Put(format.CFIndex, row[0], row[1][:4])
			return want{check: CheckArchiveWithoutOrd, key: row[0], mismatches: true}
		}},
		"a d key left behind": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			k := format.DueV2Key{At: 5, Seq: 6, Sink: 7}.Encode()
			b.Put(format.CFIndex, k, format.EncodeSize(10))
			return want{check: CheckFormat2KeyRemains, key: k}
		}},
		"ordinal without a t row": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			row := vtRows(t, st, format.FamDue, 1, nil)[0]
			dk, _ := format.DecodeDueKey(row[0])
			// Move a due row, its marker and its counts to a fresh ordinal.
			dv, _ := format.DecodeDueValue(row[1])
			b.Delete(format.CFIndex, row[0])
			old := dk
			dk.Ord = 4000
			b.Put(format.CFIndex, dk.Encode(), row[1])
			b.Put(format.CFIndex, dk.ActiveKey().Encode(), nil)
			var d format.Deltas
			d.Add(old.Ord, dv.Field(), -1)
			d.Add(old.Ord, format.FieldBytes, -int64(dv.Size))
			d.Add(4000, dv.Field(), 1)
			d.Add(4000, format.FieldBytes, int64(dv.Size))
			for _, op := range d.Ops() {
				b.Merge(format.CFCounters, op.Key, op.Operand)
			}
			return want{check: CheckOrdWithoutTenant, key: dk.Encode(), also: []string{CheckOrdNotBelowNext}}
		}},
		"a stray key in a family": {func(t *testing.T, st *rocks.Store, b *rocks.Batch) want {
			k := []byte{'F', 0, 0, 0, 1, 2, 3}
			b.Put(format.CFIndex, k, format.EncodeSize(1))
			return want{check: CheckBadKey, key: k}
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := vtFixture(t, format.Format3)
			var w want
			vtPlant(t, dir, func(st *rocks.Store, b *rocks.Batch) { w = c.plant(t, st, b) })
			rep, err := vtVerify(t, dir, VerifyOptions{})
			if rep != nil {
				t.Logf("%s\n%s", rep.Summary(), vtDump(rep))
			}
			w.check1(t, rep, err)
		})
	}
}

// want is what a planted fault must produce.
type want struct {
	check   string
	key     []byte
	related [][]byte
	// also: other checks the fault makes fail; more: further findings.
	also []string
	more []want
	// mismatch: the one counter mismatch expected (of ordinal ord), and no
	// finding. mismatches: counter mismatches are expected besides the
	// finding.
	mismatch   *CounterMismatch
	ord        uint32
	mismatches bool
	// corrupt: the key a corruption must name (exit 3).
	corrupt []byte
}

func (w want) check1(t *testing.T, rep *Report, err error) {
	t.Helper()
	if rep == nil {
		t.Fatalf("no report: %v", err)
	}
	if w.corrupt != nil {
		if !errors.Is(err, rocks.ErrCorrupt) {
			t.Fatalf("err = %v, want ErrCorrupt", err)
		}
		if rep.Verdict != VerdictCorrupt || rep.Healthy {
			t.Fatalf("verdict %q, want corrupt", rep.Verdict)
		}
		for _, c := range rep.Corruption {
			if c.Key != nil && c.Key.Hex == vtHex(w.corrupt) {
				return
			}
		}
		t.Fatalf("no corruption names key %x:\n%s", w.corrupt, vtDump(rep))
	}
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if rep.Healthy || rep.Verdict != VerdictFindings {
		t.Fatalf("verdict %q, want findings", rep.Verdict)
	}
	if w.mismatch != nil {
		if len(rep.Findings) != 0 || len(rep.CounterMismatches) != 1 {
			t.Fatalf("want exactly one counter mismatch:\n%s", vtDump(rep))
		}
		m := rep.CounterMismatches[0]
		if m.Tenant.Ord != w.ord || m.Field != w.mismatch.Field || m.Delta != w.mismatch.Delta ||
			m.Folded-m.Stored != m.Delta || m.Key.Hex != w.mismatch.Key.Hex {
			t.Fatalf("mismatch %+v, want ord %d %+v", m, w.ord, *w.mismatch)
		}
		if w.ord != 0 && (m.Tenant.ID == nil || *m.Tenant.ID == "") {
			t.Fatalf("mismatch does not name its tenant: %+v", m.Tenant)
		}
		return
	}
	allowed := append([]string{w.check}, w.also...)
	for _, m := range w.more {
		allowed = append(allowed, m.check)
	}
	for _, f := range rep.Findings {
		if !slices.Contains(allowed, f.Check) {
			t.Errorf("unexpected finding %s: %s: %s", f.Check, f.Key.Key, f.Detail)
		}
	}
	if len(rep.CounterMismatches) > 0 && !w.mismatches {
		t.Errorf("unexpected counter mismatches:\n%s", vtDump(rep))
	}
	for _, x := range append([]want{w}, w.more...) {
		x.found(t, rep)
	}
}

// found fails unless rep has w's finding, with its key and related keys.
func (w want) found(t *testing.T, rep *Report) {
	t.Helper()
	for _, f := range rep.Findings {
		if f.Check != w.check || f.Key.Hex != vtHex(w.key) {
			continue
		}
		if f.Invariant != checkInvariant[w.check] || f.Detail == "" || f.Key.Key == "" {
			t.Errorf("finding %+v: invariant, detail or decoded key missing", f)
		}
		var got []string
		for _, r := range f.Related {
			got = append(got, r.Hex)
		}
		for _, r := range w.related {
			if !slices.Contains(got, vtHex(r)) {
				t.Errorf("finding %s on %s: related keys %v lack %x", f.Check, f.Key.Key, f.Related, r)
			}
		}
		return
	}
	t.Errorf("no %s finding on key %x:\n%s", w.check, w.key, vtDump(rep))
}
