package migration

import (
	"fmt"
	"testing"

	"github.com/ankusa/ankusa-store/internal/testkit/storetest"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// The hook table keeps a seq as a 32-bit delta from its block's base, so a
// hook 2^32 or more past the base must start a new block (hookTable.add);
// without that rule its delta wraps and the table files the hook's rows under
// the wrong tenant, or under default as if the hook were missing. Each case
// lays hook seqs around such a gap, with due, inflight and dead rows behind
// every hook; the store migrated with the table must be the store migrated
// with a multi-get per step, key for key, and the contract's.
func TestHookTableSeqGapsMigrateAsLookups(t *testing.T) {
	const g = uint64(1) << 32
	run := func(from uint64, n int) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = from + uint64(i)
		}
		return s
	}
	cases := []struct {
		name string
		seqs []uint64
	}{
		{"a gap of exactly 2^32 from the base", []uint64{10, 11, 10 + g, 10 + g + 1, 12 + g}},
		{"a gap of 2^32-1 stays in the block", []uint64{10, 10 + g - 1, 10 + g, 10 + 2*g - 1}},
		{"the base's own seq plus 2^32, after a full block", append(run(100, hookTableBlock+3), 100+hookTableBlock+g, 100+hookTableBlock+g+1)},
		{"gaps of 2^32 one after another", []uint64{7, 7 + g, 7 + 2*g, 7 + 3*g, 8 + 3*g}},
		// Seqs lie below 2^63 (format.MaxAtSeq).
		{"at the top of the seq space", []uint64{5, format.MaxAtSeq - 2*g - 1, format.MaxAtSeq - g - 1, format.MaxAtSeq - 1, format.MaxAtSeq}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir() + "/store"
			s := newV2Store(t, dir)
			for i, seq := range tc.seqs {
				// Each hook a tenant of its own: a wrong lookup cannot land on
				// the right name.
				s.hook(seq, fmt.Sprintf("tenant-%d", i))
				s.due(testNow-1000+uint64(i), seq, 0, uint32(100+i))
				switch i % 3 {
				case 1:
					s.inflight(seq, 1, uint32(200+i))
				case 2:
					s.dead(testNow-5000, seq, 1, int64(300+i))
				}
			}
			s.close()
			lookups := storetest.CopyStore(t, dir)
			want := expectV3(t, dir, testNow)
			mustMigrate(t, dir, Options{hookTable: 1})
			mustMigrate(t, lookups, Options{hookTable: -1})
			byLookups := storetest.Dump(t, lookups)
			storetest.AssertSame(t, want, byLookups)
			storetest.AssertSame(t, byLookups, storetest.Dump(t, dir))
			if got, want := len(byLookups[format.CFTenants]), 4+2*len(tc.seqs); got != want {
				t.Errorf("%d tenants rows, want %d: a hook was filed under default", got, want)
			}
		})
	}
}
