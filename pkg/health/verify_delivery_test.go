package health

import (
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A dead row's delivery row that does not decode has size 0 and is counted,
// with its key, like a missing one: not a finding (the contract's delivery
// row, invariant 5). The store below is the committed fixture with one dead
// row's delivery row replaced by bytes that are not a term, and that row's
// bytes taken off its tenant's and the aggregate's counters, as a node that
// counts it 0 would have them.
func TestVerifyCountsUndecodableDeliveryRow(t *testing.T) {
	dir := vtFixture(t, format.Format3)
	var dkey []byte
	vtPlant(t, dir, func(st *rocks.Store, b *rocks.Batch) {
		row := vtRows(t, st, format.FamDead, 1, nil)[0]
		xk, _ := format.DecodeDeadKey(row[0])
		dv, _ := format.DecodeDeadValue(row[1])
		dkey = format.DeliveryKey{Seq: xk.Seq, Sink: xk.Sink}.Encode()
		v, ok, err := st.Get(format.CFDeliveries, dkey)
		if err != nil || !ok {
			t.Fatalf("delivery row of %x: %v %v", row[0], ok, err)
		}
		d, err := format.DecodeDelivery(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Put(format.CFDeliveries, dkey, []byte("not a term"))
		b.Merge(format.CFCounters, format.CounterKeyBytes(dv.Ord, format.FieldBytes), format.EncodeCounterOperand(-int64(d.Size)))
		b.Merge(format.CFCounters, format.CounterKeyBytes(0, format.FieldBytes), format.EncodeCounterOperand(-int64(d.Size)))
	})
	rep := vtHealthy(t, dir)
	c := rep.Counts
	if c.UndecodableDeliveryRows == nil || *c.UndecodableDeliveryRows != 1 || len(c.UndecodableDeliveryKeys) != 1 ||
		c.UndecodableDeliveryKeys[0] != keyRef(format.CFDeliveries, dkey) {
		t.Fatalf("counts: %+v, keys %+v; want the one undecodable delivery row %x", c, c.UndecodableDeliveryKeys, dkey)
	}
}
