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
