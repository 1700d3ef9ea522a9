package cmd

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/ankusa/ankusa-store/internal/exitcode"
	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/health"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// plantUndecodableDelivery replaces the delivery row of the store's first
// dead row by bytes that are not a term, and takes that row's bytes off its
// tenant's and the aggregate's counters, as a node that counts it 0 leaves
// them (the contract's delivery row: size 0, counted, not a finding). It
// returns the tenant and the delivery key.
func plantUndecodableDelivery(t *testing.T, dir string) (tenant string, dkey []byte) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f := format.FamDead
	var xk format.DeadKey
	var dv format.DeadValue
	err = st.Scan(f.CF, f.Lo, f.Hi, rocks.ReadOpts{}, func(k, v []byte) error {
		if bytes.Equal(k, f.Lo) {
			return nil
		}
		if xk, err = format.DecodeDeadKey(k); err != nil {
			return err
		}
		if dv, err = format.DecodeDeadValue(v); err != nil {
			return err
		}
		return rocks.Stop
	})
	if err != nil || xk.Seq == 0 {
		t.Fatalf("no dead row: %v", err)
	}
	dkey = format.DeliveryKey{Seq: xk.Seq, Sink: xk.Sink}.Encode()
	v, ok, err := st.Get(format.CFDeliveries, dkey)
	if err != nil || !ok {
		t.Fatalf("delivery row %x: %v %v", dkey, ok, err)
	}
	d, err := format.DecodeDelivery(v)
	if err != nil {
		t.Fatal(err)
	}
	tv, ok, err := st.Get(format.CFTenants, format.TenantByOrdKey{Ord: dv.Ord}.Encode())
	if err != nil || !ok || len(tv) == 0 {
		t.Fatalf("t row of ordinal %d: %q %v %v", dv.Ord, tv, ok, err)
	}
	b := rocks.NewBatch()
	b.Put(format.CFDeliveries, dkey, []byte("not a term"))
	for _, ord := range []uint32{dv.Ord, format.AggregateOrd} {
		b.Merge(format.CFCounters, format.CounterKeyBytes(ord, format.FieldBytes), format.EncodeCounterOperand(-int64(d.Size)))
	}
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	return string(tv), dkey
}

// counters verify --tenant reads a tenant's dead rows' delivery rows by
// multi-get where the whole-store run joins them in a scan; both must count a
// delivery row that does not decode, with its key, and stay healthy: the
// one-tenant report's count is the whole store's (this store's only such row
// is the tenant's).
func TestCountersVerifyTenantCountsUndecodableDelivery(t *testing.T) {
	dir := storetest.Extract(t, "store-v3.tar.zst")
	tenant, dkey := plantUndecodableDelivery(t, dir)
	want := format.RefTo(format.CFDeliveries, dkey)
	var reports [2]health.Report
	for i, args := range [][]string{
		{"counters", "verify", "-o", "json", dir},
		{"counters", "verify", "--tenant", tenant, "-o", "json", dir},
	} {
		code, stdout, stderr := runCLI(t.Context(), args)
		if code != exitcode.OK {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &reports[i]); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stdout)
		}
		c := reports[i].Counts
		if c.UndecodableDeliveryRows == nil || *c.UndecodableDeliveryRows != 1 || len(c.UndecodableDeliveryKeys) != 1 {
			t.Fatalf("%v: counts %s; want the one undecodable delivery row %x", args, jsonOf(c), dkey)
		}
		if got := c.UndecodableDeliveryKeys[0]; got != want {
			t.Errorf("%v names %+v, want %+v", args, got, want)
		}
	}
	if reports[1].Tenant == nil || reports[1].Tenant.ID == nil || *reports[1].Tenant.ID != tenant {
		t.Errorf("the one-tenant report is not limited to %s: %s", tenant, jsonOf(reports[1].Tenant))
	}
}
