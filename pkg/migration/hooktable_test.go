package migration

import (
	"context"
	"math"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The hook table answers for every seq what a multi-get of the hook and
// TenantOf answer: hooks present (every default reason among them), and
// seqs with no hook before, between and after them.
func TestHookTableIsTheLookup(t *testing.T) {
	dir := makeV2(t, genSpec{seed: 11, hooks: 900, tenants: 30, now: testNow, missing: 0.05, undecodable: 0.05, nilTenant: 0.1})
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	table, err := buildHookTable(context.Background(), st, 1, hookTableLimit, t.TempDir())
	if err != nil || table == nil {
		t.Fatalf("buildHookTable: %v, %v", table, err)
	}
	seqs := map[uint64]bool{0: true, math.MaxUint64: true}
	reasons := map[format.DefaultReason]int{}
	hooks := 0
	if err := st.Scan(format.CFHooks, nil, nil, rocks.ReadOpts{}, func(k, _ []byte) error {
		hk, err := format.DecodeHookKey(k)
		if err != nil {
			t.Fatal(err)
		}
		hooks++
		for _, s := range []uint64{hk.Seq - 1, hk.Seq, hk.Seq + 1} {
			seqs[s] = true
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for seq := range seqs {
		v, found, err := st.Get(format.CFHooks, format.HookKey{Seq: seq}.Encode())
		if err != nil {
			t.Fatal(err)
		}
		wantTenant, wantReason := format.TenantOf(v, found)
		tenant, reason, _, err := table.lookup(seq)
		if err != nil {
			t.Fatal(err)
		}
		if tenant != wantTenant || reason != wantReason {
			t.Fatalf("seq %d: table says %q, %v; the hooks family %q, %v", seq, tenant, reason, wantTenant, wantReason)
		}
		reasons[reason]++
	}
	if table.hooks() != hooks {
		t.Fatalf("table holds %d hooks, the family %d", table.hooks(), hooks)
	}
	for _, r := range []format.DefaultReason{format.ReasonNone, format.ReasonNilTenant, format.ReasonMissingHook, format.ReasonUndecodable} {
		if reasons[r] == 0 {
			t.Errorf("no seq looked up had reason %v: the store does not test it", r)
		}
	}

	if table, err := buildHookTable(context.Background(), st, 1, hookLimits{bytes: 1000, tenants: 1 << 18}, t.TempDir()); err != nil || table != nil {
		t.Fatalf("a limit of 1000 bytes: table %v, %v; want none", table, err)
	}
	if table, err := buildHookTable(context.Background(), st, 1, hookLimits{bytes: 1 << 30, tenants: 10}, t.TempDir()); err != nil || table != nil {
		t.Fatalf("a limit of 10 tenants (the store has 30): table %v, %v; want none", table, err)
	}
	if table, err := buildHookTable(context.Background(), st, -1, hookTableLimit, t.TempDir()); err != nil || table != nil {
		t.Fatalf("use -1: table %v, %v; want none", table, err)
	}
}

// Seqs far apart (a block's base cannot reach them in 32 bits) and full
// blocks.
func TestHookTableBlocks(t *testing.T) {
	table, err := newHookTable(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer table.free()
	want := map[uint64]string{}
	seq := uint64(5)
	for i := range 1000 {
		switch {
		case i%300 == 299:
			seq += 1 << 33
		case i%7 == 0:
			seq += 1<<32 - 1
		default:
			seq += uint64(1 + i%3)
		}
		tenant := string(rune('a' + i%26))
		if err := table.add(seq, tenant, format.ReasonNone); err != nil {
			t.Fatal(err)
		}
		want[seq] = tenant
	}
	if err := table.finish(); err != nil {
		t.Fatal(err)
	}
	if len(table.base.S()) < 1000/hookTableBlock+100 {
		t.Fatalf("%d blocks for 1000 hooks: the gaps did not start blocks", len(table.base.S()))
	}
	for s := range want {
		for _, probe := range []uint64{s - 1, s, s + 1} {
			got, reason, _, err := table.lookup(probe)
			if err != nil {
				t.Fatal(err)
			}
			wantTenant, ok := want[probe]
			if !ok {
				wantTenant = format.DefaultTenant
			}
			if got != wantTenant || (ok && reason != format.ReasonNone) || (!ok && reason != format.ReasonMissingHook) {
				t.Fatalf("seq %d: %q, %v; want %q", probe, got, reason, wantTenant)
			}
		}
	}
}
