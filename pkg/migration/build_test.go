package migration

import (
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// Hooks filed under default are counted once each while the builder can
// remember their seqs, findings and nil tenants on separate budgets; past a
// budget the count is per step and flagged approximate.
func TestCountDefaultBudgets(t *testing.T) {
	b := newBuilder(nil, 0)
	b.seqLimit = 2
	var st stepStats
	for _, seq := range []uint64{1, 1, 2, 1, 2} {
		b.countDefault(&st, hookTenant{seq: seq, tenant: "default", reason: format.ReasonNilTenant})
	}
	if st.defHooks[format.ReasonNilTenant] != 2 || b.approx {
		t.Fatalf("nil tenants: %d hooks, approx %v; want 2, exact", st.defHooks[format.ReasonNilTenant], b.approx)
	}
	for _, seq := range []uint64{7, 8, 7} {
		b.countDefault(&st, hookTenant{seq: seq, tenant: "default", reason: format.ReasonMissingHook})
	}
	if st.defHooks[format.ReasonMissingHook] != 2 || b.approx || len(st.defEx[format.ReasonMissingHook]) != 2 {
		t.Fatalf("findings share the nil tenants' budget: %d hooks, approx %v", st.defHooks[format.ReasonMissingHook], b.approx)
	}
	b.countDefault(&st, hookTenant{seq: 3, tenant: "default", reason: format.ReasonNilTenant})
	b.countDefault(&st, hookTenant{seq: 9, tenant: "acme", reason: format.ReasonNone})
	if st.defHooks[format.ReasonNilTenant] != 3 || !b.approx || st.defHooks[format.ReasonNone] != 0 {
		t.Fatalf("past the budget: %d nil-tenant hooks, approx %v", st.defHooks[format.ReasonNilTenant], b.approx)
	}
}

// A step's writes reach the batch sorted by column family and key, and a
// step that would write one key twice is refused rather than reordered.
func TestOpBufSortsAndRefusesDuplicates(t *testing.T) {
	var o opBuf
	o.put(cfIndex, []byte("D2"), []byte("v"))
	o.del(cfIndex, []byte("d1"))
	o.merge(cfCounters, []byte{0, 0, 0, 1, 5}, []byte("op"))
	o.put(cfDefault, []byte("m:migrating:3"), []byte{1})
	o.put(cfIndex, []byte("A9"), nil)
	b := rocks.NewBatch()
	if err := o.writeTo(b); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range o.ops {
		got = append(got, bufCFs[op.cf]+"/"+string(o.key(op)))
	}
	want := []string{"default/m:migrating:3", "index/A9", "index/D2", "index/d1", "counters/\x00\x00\x00\x01\x05"}
	if !slices.Equal(got, want) || b.Count() != len(want) {
		t.Fatalf("order %q (batch of %d), want %q", got, b.Count(), want)
	}

	o.reset()
	o.put(cfIndex, []byte("x1"), []byte("a"))
	o.del(cfTenants, []byte("x1"))
	o.put(cfIndex, []byte("x1"), []byte("b"))
	if err := o.writeTo(rocks.NewBatch()); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("a key written twice: err = %v", err)
	}
}
