package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/inspect"
	"github.com/ankusa/ankusa-store/pkg/rocks"
)

// A fixture made as each release's node holds that node's OPTIONS file, named where RocksDB
// put its own: status names exactly that release (by the file), the tables are of the
// release's default format_version, and the write rule reads the file back.
func TestFixtureIsEachReleasesNode(t *testing.T) {
	for _, r := range rocks.BindingReleases {
		t.Run(r.Name(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "store")
			node := r.Releases[len(r.Releases)-1]
			if code, out, errOut := runCLI(t.Context(), []string{"fixture", "-q", "--hooks", "60", "--node", node, "--dir", dir}); code != 0 {
				t.Fatalf("fixture --node %s: exit %d\n%s%s", node, code, out, errOut)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
			if len(files) != 1 {
				t.Fatalf("OPTIONS files %v, want the node's one", files)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "\n  rocksdb_version="+r.RocksDB+"\n") {
				t.Errorf("%s does not name RocksDB %s:\n%s", files[0], r.RocksDB, b)
			}
			wantTableVersion(t, dir, r.WritesTableFormat)
			code, out, errOut := runCLI(t.Context(), []string{"status", "-o", "json", dir})
			if code != 0 {
				t.Fatalf("status: exit %d\n%s", code, errOut)
			}
			var st struct {
				RocksDB inspect.StatusRocksDB `json:"rocksdb"`
			}
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatal(err)
			}
			w := st.RocksDB.WrittenBy
			if w.By != "options" || !slices.Equal(w.Releases, r.Releases) || st.RocksDB.OptionsFile != filepath.Base(files[0]) {
				t.Errorf("written by %+v from %s, want %v by options from %s", w, st.RocksDB.OptionsFile, r.Releases, filepath.Base(files[0]))
			}
			if !strings.Contains(st.RocksDB.Writes, "RocksDB "+r.RocksDB) || !strings.Contains(st.RocksDB.Writes, filepath.Base(files[0])) {
				t.Errorf("the write rule %q is not from the node's file", st.RocksDB.Writes)
			}
		})
	}
}
