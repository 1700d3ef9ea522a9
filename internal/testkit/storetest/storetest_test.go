package storetest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// The helpers are what other tests' verdicts rest on: a tree sees every
// changed byte, mode, added and removed file; a copy is the same tree; a
// dump sees a changed value.
func TestTreeSeesEveryChange(t *testing.T) {
	dir := Extract(t, "store-v3.tar.zst")
	before := TreeOf(t, dir)
	if len(before.Diff(TreeOf(t, dir))) != 0 {
		t.Fatal("a tree differs from itself")
	}
	cp := CopyStore(t, dir)
	if d := before.Diff(TreeOf(t, cp)); len(d) != 0 {
		t.Fatalf("a copy differs: %v", d)
	}
	changes := []struct {
		name string
		do   func(dir string) error
		want string
	}{
		{"byte", func(d string) error {
			return os.WriteFile(filepath.Join(d, "CURRENT"), []byte("MANIFEST-000000\n"), 0o644)
		}, "changed CURRENT"},
		{"mode", func(d string) error { return os.Chmod(filepath.Join(d, "CURRENT"), 0o600) }, "changed CURRENT"},
		{"added", func(d string) error { return os.WriteFile(filepath.Join(d, "extra"), nil, 0o644) }, "added extra"},
		{"removed", func(d string) error { return os.Remove(filepath.Join(d, "CURRENT")) }, "removed CURRENT"},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			d := CopyStore(t, dir)
			if err := c.do(d); err != nil {
				t.Fatal(err)
			}
			diff := before.Diff(TreeOf(t, d))
			if len(diff) != 1 || !slices.ContainsFunc(diff, func(s string) bool { return len(s) >= len(c.want) && s[:len(c.want)] == c.want }) {
				t.Fatalf("diff %q, want one line starting %q", diff, c.want)
			}
		})
	}
}

func TestDumpSeesAChangedValue(t *testing.T) {
	dir := Extract(t, "store-v3.tar.zst")
	want := Dump(t, dir)
	if d := Diff(want, Dump(t, CopyStore(t, dir))); d != "" {
		t.Fatalf("a copy's content differs:\n%s", d)
	}
	st, err := rocks.OpenStore(dir, rocks.Options{Mode: rocks.ReadWrite})
	if err != nil {
		t.Fatal(err)
	}
	b := rocks.NewBatch()
	b.Put(format.CFDefault, []byte("storetest"), []byte("x"))
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if Diff(want, Dump(t, dir)) == "" {
		t.Fatal("Diff does not see an added key")
	}
}

// A Writer commits as a node does: an ordinal per tenant, once, with its t
// and n rows; the deltas as merged counters on the tenant and on ordinal 0;
// m:next_ord past the last ordinal; every family's sentinels.
func TestWriterCommitsAsANodeDoes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	st := Create(t, dir, format.Format3, rocks.Tuning{})
	w := NewWriter(format.Format3)
	if a, g, a2 := w.Ord("acme"), w.Ord("globex"), w.Ord("acme"); a != 1 || g != 2 || a2 != 1 {
		t.Fatalf("ordinals acme %d, globex %d, acme again %d; want 1, 2, 1", a, g, a2)
	}
	w.Deltas.Add(2, format.FieldPending, 3)
	w.Commit(t, st, true)
	w.Deltas.Add(2, format.FieldPending, -1)
	w.Commit(t, st, true)
	st.Close()

	c := Dump(t, dir)
	for _, f := range format.FamiliesOf(format.Format3) {
		if _, lo := c[f.CF][string(f.Lo)]; !lo {
			t.Errorf("family %s: no lo sentinel", f.Name)
		}
		if _, hi := c[f.CF][string(f.Hi)]; !hi {
			t.Errorf("family %s: no hi sentinel", f.Name)
		}
	}
	if got := c[format.CFTenants][string(format.OrdByTenantKey{Tenant: "globex"}.Encode())]; got != string(format.EncodeU32(2)) {
		t.Errorf("n globex = %x, want ordinal 2", got)
	}
	if got := c[format.CFDefault][format.KeyNextOrd]; got != string(format.EncodeU32(3)) {
		t.Errorf("m:next_ord = %x, want 3", got)
	}
	for _, ord := range []uint32{2, 0} {
		v := c[format.CFCounters][string(format.CounterKeyBytes(ord, format.FieldPending))]
		if n, err := format.DecodeCounterValue([]byte(v)); err != nil || n != 2 {
			t.Errorf("pending of ordinal %d = %d (%v), want 2", ord, n, err)
		}
	}
}
