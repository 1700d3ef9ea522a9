package rocks

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// An SSTWriter hands its entries over in batches of sstAddBytes: a file written in many
// batches, with deletions among the puts, values empty and larger than a batch, and a range
// deletion among them, holds every entry, as ingested and read back; a key out of
// order is refused with RocksDB's status, whichever call returns it, and nothing more is
// added.
func TestSSTWriterBatches(t *testing.T) {
	st, stage := stagedStore(t)
	// Keys the store holds before, some under the range deletion, some deleted by key.
	mustWrite(t, st.DB, func(b *Batch) {
		for i := 0; i < 5000; i += 7 {
			b.Put(format.CFIndex, fmt.Appendf(nil, "k%06d", i), []byte("old"))
			b.Put(format.CFIndex, fmt.Appendf(nil, "m%06d", i), []byte("old"))
		}
	})
	w, err := st.NewSSTWriter(format.CFIndex, filepath.Join(stage, "index.sst"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	big := bytes.Repeat([]byte{'b'}, 3*sstAddBytes/2)
	for i := range 5000 {
		k := fmt.Appendf(nil, "k%06d", i)
		switch {
		case i%10 == 3:
			err = w.Delete(k)
		case i == 2500:
			err = w.Put(k, big)
			want[string(k)] = string(big)
		case i%10 == 5:
			err = w.Put(k, nil)
			want[string(k)] = ""
		default:
			v := bytes.Repeat([]byte{byte('a' + i%26)}, 40+i%60)
			err = w.Put(k, v)
			want[string(k)] = string(v)
		}
		if err != nil {
			t.Fatal(err)
		}
		if i == 4000 {
			// The old keys of [m, n) go; none of the file's keys is there.
			if err := w.DeleteRange([]byte("m"), []byte("n")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := st.IngestFiles(map[string]string{format.CFIndex: w.Path}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := st.Scan(format.CFIndex, []byte("k"), []byte("l"), ReadOpts{}, func(k, v []byte) error {
		got[string(k)] = string(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Scan(format.CFIndex, []byte("m"), []byte("n"), ReadOpts{}, func(k, v []byte) error {
		return fmt.Errorf("%s is left under the range deletion", k)
	}); err != nil {
		t.Error(err)
	}
	if len(got) != len(want) {
		t.Errorf("the store holds %d keys of the file's range, want %d", len(got), len(want))
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Fatalf("key %s: %d bytes (present %v), want %d", k, len(g), ok, len(v))
		}
	}

	// Out of order: refused by RocksDB, at the Put that hands the batch over or at Finish.
	w, err = st.NewSSTWriter(format.CFIndex, filepath.Join(stage, "disorder.sst"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = nil
	for i := 0; i < 3000 && err == nil; i++ {
		k := fmt.Appendf(nil, "k%06d", i)
		if i == 100 {
			k = []byte("a")
		}
		err = w.Put(k, bytes.Repeat([]byte{'v'}, 100))
	}
	if err == nil {
		err = w.Finish()
	}
	var se *StatusError
	if !errors.As(err, &se) || se.Status.Code != CodeInvalidArgument {
		t.Fatalf("a key out of order: %v, want RocksDB's InvalidArgument", err)
	}
}
