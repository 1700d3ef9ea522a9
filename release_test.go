package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The release binary must run on a node without librocksdb: build it exactly as the release
// does (scripts/static-build.sh carries .goreleaser.yaml's flags), check what it links, and run
// it on the committed format 3 fixture.
func TestStaticReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("links a static binary (about a minute); run without -short")
	}
	bin := filepath.Join(t.TempDir(), "ankusa-store")
	build := exec.Command("bash", "scripts/static-build.sh", bin, "v0.0.0-test")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("static build: %v\n%s", err, out)
	}

	out, err := exec.Command("ldd", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("ldd: %v\n%s", err, out)
	}
	for _, lib := range []string{"librocksdb", "libsnappy", "liblz4", "libzstd", "libz.so", "libbz2", "libgflags", "libstdc++"} {
		if strings.Contains(string(out), lib) {
			t.Errorf("release binary links %s dynamically:\n%s", lib, out)
		}
	}

	version, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, version)
	}
	for _, want := range []string{"v0.0.0-test", "rocksdb 7.8.3", "store formats"} {
		if !strings.Contains(string(version), want) {
			t.Errorf("version output lacks %q:\n%s", want, version)
		}
	}

	fixture, err := filepath.Abs("testdata/store-v3.tar.zst")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fixture); err != nil {
		t.Fatal(err)
	}
	verify := exec.Command(bin, "counters", "verify", fixture)
	if out, err := verify.CombinedOutput(); err != nil {
		t.Fatalf("counters verify on the v3 fixture: %v\n%s", err, out)
	}
}
