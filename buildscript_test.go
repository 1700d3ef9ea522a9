package main

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scripts/build-rocksdb.sh builds only the files of the tag v11.1.2: an archive whose files
// differ from the tag's git tree (one file changed, here a whole other tree) is refused,
// exit non-zero, naming both tree ids, and one that is not an archive is refused as such.
// (The vendor copy and upstream's archive of the tag pass the same check: the script's own
// comment says how to run it by hand, --check-only.)
func TestBuildScriptRefusesAnArchiveThatIsNotTheTag(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed to hash an archive's files: %v", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "rocksdb-11.1.2.tar.gz")
	f, err := os.Create(bad)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	body := "#define ROCKSDB_MAJOR 11\n#define ROCKSDB_MINOR 1\n#define ROCKSDB_PATCH 2\n"
	for _, h := range []*tar.Header{
		{Name: "rocksdb-11.1.2/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "rocksdb-11.1.2/include/", Typeflag: tar.TypeDir, Mode: 0o755},
		{Name: "rocksdb-11.1.2/include/version.h", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))},
	} {
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(body))
		}
	}
	tw.Close()
	zw.Close()
	f.Close()
	notArchive := filepath.Join(dir, "notes.tar.gz")
	os.WriteFile(notArchive, []byte("not an archive"), 0o644)
	for _, tc := range []struct{ archive, want string }{
		{bad, "not 36afaac5df4b9666e3c7ca5e32e094edd6fedfac (the tree of rocksdb v11.1.2)"},
		{notArchive, "does not unpack as a gzip tar archive"},
	} {
		out, err := exec.Command("bash", "scripts/build-rocksdb.sh", "--check-only", tc.archive).CombinedOutput()
		if err == nil {
			t.Errorf("%s: accepted:\n%s", tc.archive, out)
		}
		if !strings.Contains(string(out), "refused "+tc.archive) || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: the refusal does not say %q:\n%s", tc.archive, tc.want, out)
		}
	}
}
