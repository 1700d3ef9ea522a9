package rocks

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// ldb is the independent reader operators reach for: a store this package created must open
// in it as it is (no options of ours that make ldb refuse it, such as error_if_exists).
func TestCreatedStoreOpensInLdb(t *testing.T) {
	ldb, err := exec.LookPath("ldb")
	if err != nil {
		t.Skip("ldb (rocksdb-tools) is not installed")
	}
	dir := filepath.Join(t.TempDir(), "store")
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	out, err := exec.Command(ldb, "--db="+dir, "list_column_families").CombinedOutput()
	if err != nil {
		t.Fatalf("ldb list_column_families: %v\n%s", err, out)
	}
	for _, cf := range format.FamiliesV3 {
		if !strings.Contains(string(out), cf) {
			t.Errorf("ldb does not list %s:\n%s", cf, out)
		}
	}
	out, err = exec.Command(ldb, "--db="+dir, "--column_family=default", "scan").CombinedOutput()
	if err != nil {
		t.Fatalf("ldb scan: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), format.KeyFormat) {
		t.Errorf("ldb scan of default lacks %s:\n%s", format.KeyFormat, out)
	}
	// A write makes ldb load the store's OPTIONS file, where error_if_exists would refuse it.
	out, err = exec.Command(ldb, "--db="+dir, "put", "probe:ldb", "1").CombinedOutput()
	if err != nil {
		t.Fatalf("ldb put: %v\n%s", err, out)
	}
}
