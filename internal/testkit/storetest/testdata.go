package storetest

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ankusa/ankusa-store/pkg/archive"
)

// Testdata is the absolute path of the repository's testdata directory,
// wherever the test runs from.
func Testdata() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata")
}

// Extract extracts the committed archive testdata/<rel> (e.g.
// "store-v3.tar.zst", "health/verify-faults.tar.zst") into a new directory
// of the test's, named after the archive ("store-v3", "verify-faults"), and
// returns that directory.
func Extract(t testing.TB, rel string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(rel), ".tar.zst"))
	path := filepath.Join(Testdata(), rel)
	if err := archive.ExtractArchive(path, dir); err != nil {
		t.Fatalf("extract %s: %v", path, err)
	}
	return dir
}
