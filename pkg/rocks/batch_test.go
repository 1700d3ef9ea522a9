package rocks

import (
	"bytes"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A dropped operation is not written and no longer counts; the rest of the batch is
// written as it stands, in order, every kind of operation in one write.
func TestBatchDrop(t *testing.T) {
	dir := t.TempDir() + "/store"
	newStore(t, dir, format.FamCounters)
	db := mustOpen(t, dir, Options{Mode: ReadWrite})
	var seen []int
	db.ObserveWrites(func(ops int, _ bool) { seen = append(seen, ops) })
	b := NewBatch()
	b.Put(format.CFHooks, []byte("a"), []byte("1"))
	put := b.Next()
	b.Put(format.CFHooks, []byte("b"), []byte("2"))
	del := b.Next()
	b.Delete(format.CFHooks, []byte("a"))
	b.Put(format.CFDeliveries, []byte("c"), []byte("3"))
	merge := b.Next()
	b.Merge(format.CFCounters, counterKey(2), operand(5))
	b.Merge(format.CFCounters, counterKey(2), operand(7))
	b.Drop(put)
	b.Drop(del)
	b.Drop(merge)
	b.Drop(merge) // twice is once
	if b.Count() != 3 || b.Next() != 6 {
		t.Fatalf("Count %d Next %d, want 3 and 6", b.Count(), b.Next())
	}
	if err := db.Write(b, false); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen[0] != 3 {
		t.Fatalf("ObserveWrites saw %v, want [3]", seen)
	}
	want := map[string]string{"hooks/a": "1", "hooks/b": "", "deliveries/c": "3"}
	for k, w := range want {
		cf, key, _ := bytes.Cut([]byte(k), []byte("/"))
		v, ok, err := db.Get(string(cf), key)
		if err != nil || ok != (w != "") || string(v) != w {
			t.Errorf("%s = %q, %v, %v; want %q", k, v, ok, err, w)
		}
	}
	if v, _, err := db.Get(format.CFCounters, counterKey(2)); err != nil || !bytes.Equal(v, ok(7)) {
		t.Errorf("counter = %v %v, want the one merge not dropped (7)", v, err)
	}
	b.Clear()
	if b.Count() != 0 || b.Next() != 0 {
		t.Fatalf("cleared batch: Count %d Next %d", b.Count(), b.Next())
	}
}
