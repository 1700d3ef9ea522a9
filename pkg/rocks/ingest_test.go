package rocks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// IngestFiles is all or nothing across families: with one family's file damaged, whichever
// family it is, the call fails and no family holds a key of the other files; with every file
// whole, every family holds its file's keys. Ingesting family by family (one call each, as the
// C API does) leaves the first family's file in the store when the second fails, and a kill
// between the calls would leave a half-migrated store: this test fails then.
func TestIngestFilesIsAllOrNothing(t *testing.T) {
	fams := []string{format.CFTenants, format.CFCounters, format.CFIndex}
	for _, damaged := range append(fams, "") {
		t.Run("damaged="+damaged, func(t *testing.T) {
			st, stage := stagedStore(t)
			key := []byte("zz-ingested")
			files := map[string]string{}
			for _, cf := range fams {
				w, err := st.NewSSTWriter(cf, filepath.Join(stage, cf+".sst"))
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Put(key, []byte(cf)); err != nil {
					t.Fatal(err)
				}
				if err := w.Finish(); err != nil {
					t.Fatal(err)
				}
				files[cf] = w.Path
				if cf == damaged {
					// Its footer cut off: RocksDB refuses the file when it reads it.
					fi, err := os.Stat(w.Path)
					if err != nil {
						t.Fatal(err)
					}
					if err := os.Truncate(w.Path, fi.Size()-20); err != nil {
						t.Fatal(err)
					}
				}
			}
			err := st.IngestFiles(files)
			if (err == nil) != (damaged == "") {
				t.Fatalf("ingest with %q damaged: %v", damaged, err)
			}
			for _, cf := range fams {
				v, ok, err := st.Get(cf, key)
				if err != nil {
					t.Fatal(err)
				}
				if ok != (damaged == "") || (ok && string(v) != cf) {
					t.Errorf("with %q damaged, %s holds the key: %v (%q)", damaged, cf, ok, v)
				}
			}
		})
	}
}
