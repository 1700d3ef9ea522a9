package rocks

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// A reader of a few families (completion) opens only them, and may read the store without
// its WAL: what the last flush left in the tables, and nothing of the WAL.
func TestOpenSomeFamiliesWithoutWAL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	b.Put(format.CFDefault, []byte(format.KeyFormat), format.EncodeU32(format.Format3))
	b.Put(format.CFTenants, []byte("nflushed"), format.EncodeU32(1))
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	for _, cf := range st.Families() {
		if err := st.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
	b = NewBatch()
	b.Put(format.CFTenants, []byte("nin-the-wal"), format.EncodeU32(2))
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if logs, _ := filepath.Glob(filepath.Join(dir, "*.log")); len(logs) == 0 {
		t.Fatal("no WAL left")
	}

	for _, tc := range []struct {
		o      Options
		wal    bool
		opened []string
	}{
		{Options{Mode: ReadOnly}, true, format.FamiliesV3},
		{Options{Mode: ReadOnly, Families: []string{format.CFTenants}}, true, []string{format.CFDefault, format.CFTenants}},
		{Options{Mode: ReadOnly, Families: []string{format.CFTenants}, SkipWAL: true}, false, []string{format.CFDefault, format.CFTenants}},
	} {
		st, err := OpenStore(dir, tc.o)
		if err != nil {
			t.Fatalf("%+v: %v", tc.o, err)
		}
		got, want := st.Families(), slices.Clone(tc.opened)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%+v opened %q, want %q", tc.o, got, want)
		}
		if l := st.Listed(); len(l) != len(format.FamiliesV3) {
			t.Errorf("%+v lists %q, want every family of the store", tc.o, l)
		}
		if _, ok, err := st.Get(format.CFTenants, []byte("nflushed")); err != nil || !ok {
			t.Errorf("%+v: a flushed row: %v %v", tc.o, ok, err)
		}
		if _, ok, err := st.Get(format.CFTenants, []byte("nin-the-wal")); err != nil || ok != tc.wal {
			t.Errorf("%+v: the row in the WAL found=%v (%v), want %v", tc.o, ok, err, tc.wal)
		}
		st.Close()
	}
	// The empty WAL directory is gone with the read.
	ents, _ := os.ReadDir(os.TempDir())
	for _, e := range ents {
		if strings.Contains(e.Name(), "nowal-"+strconv.Itoa(os.Getpid())) {
			t.Errorf("left %s", e.Name())
		}
	}
	if _, err := OpenStore(dir, Options{Mode: ReadWrite, SkipWAL: true}); err == nil {
		t.Error("a read-write open without the WAL was not refused")
	}
	if _, err := OpenStore(dir, Options{Mode: ReadWrite, Families: []string{format.CFTenants}}); err == nil {
		t.Error("a read-write open of some families was not refused")
	}
}
