package storetest

import (
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// StrayKeys is one key inside each of the format 2 due, inflight, dead and archive families'
// bounds that is none of their keys: a real key cut short by a byte, or with bytes too many.
// A migration counts such keys and leaves them (the old families' go with their range
// deletions); any way of migrating must do the same.
func StrayKeys() [][]byte {
	due := format.DueV2Key{At: 5, Seq: 1, Sink: 1}.Encode()
	inflight := format.InflightV2Key{Seq: 1, Sink: 1}.Encode()
	dead := format.DeadKey{At: 5, Seq: 1, Sink: 1}.Encode()
	archive := format.ArchiveKey{Seq: 1}.Encode()
	return [][]byte{
		due[:len(due)-1], slices.Concat(due, []byte{7}),
		inflight[:len(inflight)-1],
		dead[:len(dead)-1],
		slices.Concat(archive, []byte{1, 2}),
	}
}

// AddStrays writes StrayKeys into the index family of the store in dir, in one synced batch.
func AddStrays(t testing.TB, dir string) {
	t.Helper()
	b := rocks.NewBatch()
	for _, k := range StrayKeys() {
		b.Put(format.CFIndex, k, []byte("junk"))
	}
	writeBatch(t, dir, b)
}

// DamageRows damages the hooks and deliveries of the store in dir as a node's disk or an old
// bug would, every nth row of each family in key order: of the hooks, the first of each n
// deleted (its index rows left pointing at nothing: a missing hook) and the second
// overwritten with bytes no envelope decodes (an undecodable hook); of the delivery rows, the
// first of each n deleted (a dead row whose size is unknown). The rows are picked by their
// place, not their bytes, so no key is built here.
func DamageRows(t testing.TB, dir string, n int) {
	t.Helper()
	if n < 2 {
		t.Fatalf("DamageRows: every %d rows: at least 2", n)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadOnly})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	b := rocks.NewBatch()
	for _, cf := range []string{format.CFHooks, format.CFDeliveries} {
		i := 0
		err := st.Scan(cf, nil, nil, rocks.ReadOpts{}, func(k, _ []byte) error {
			switch {
			case i%n == 0:
				b.Delete(cf, slices.Clone(k))
			case i%n == 1 && cf == format.CFHooks:
				b.Put(cf, slices.Clone(k), []byte{131, 0xff, 0xfe}) // the ETF version byte, then no term
			}
			i++
			return nil
		})
		if err != nil {
			t.Fatalf("scan %s/%s: %v", dir, cf, err)
		}
	}
	st.Close()
	writeBatch(t, dir, b)
}

// writeBatch commits b to the store in dir, synced.
func writeBatch(t testing.TB, dir string, b *rocks.Batch) {
	t.Helper()
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatalf("open %s: %v", dir, err)
	}
	defer st.Close()
	if err := st.Write(b, true); err != nil {
		t.Fatalf("write %s: %v", dir, err)
	}
}
