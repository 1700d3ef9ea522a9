package rocks

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// IngestFileSets lands every file of a family's set, not only its first or its last, and,
// the files not overlapping, each in the family's last level (no L0 for the node to
// compact). Ingesting only the first file of each set fails it on the keys of the others.
func TestIngestFileSetsLandsEveryFile(t *testing.T) {
	st, stage := stagedStore(t)
	sets := map[string][]string{}
	want := map[string][]string{}
	for cf, n := range map[string]int{format.CFIndex: 3, format.CFHooks: 1} {
		for i := range n {
			w, err := st.NewSSTWriter(cf, filepath.Join(stage, fmt.Sprintf("%s-%d.sst", cf, i)))
			if err != nil {
				t.Fatal(err)
			}
			// Files of one family side by side in key order: "zz-0-..." before "zz-1-...".
			for j := range 3 {
				k := fmt.Sprintf("zz-%d-%d", i, j)
				if err := w.Put([]byte(k), []byte(cf)); err != nil {
					t.Fatal(err)
				}
				want[cf] = append(want[cf], k)
			}
			if err := w.Finish(); err != nil {
				t.Fatal(err)
			}
			sets[cf] = append(sets[cf], w.Path)
		}
	}
	if err := st.IngestFileSets(sets); err != nil {
		t.Fatal(err)
	}
	for cf, keys := range want {
		for _, k := range keys {
			v, ok, err := st.Get(cf, []byte(k))
			if err != nil || !ok || string(v) != cf {
				t.Errorf("%s %s after the ingest: %q, %v, %v", cf, k, v, ok, err)
			}
		}
		last := strconv.Itoa(NumLevels - 1)
		for l, wantFiles := range map[string]int{"0": 0, last: len(sets[cf])} {
			v, err := st.Property(cf, "rocksdb.num-files-at-level"+l)
			if err != nil || strings.TrimSpace(v) != strconv.Itoa(wantFiles) {
				t.Errorf("%s: %q files at level %s (%v), want %d", cf, v, l, err, wantFiles)
			}
		}
	}
	if err := st.IngestFileSets(map[string][]string{format.CFIndex: nil}); err == nil {
		t.Error("an empty set ingested without an error")
	}
}
