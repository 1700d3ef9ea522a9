package main

import (
	"bytes"
	"debug/buildinfo"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RocksDB assertion texts: in the binary only when its RocksDB was compiled without NDEBUG.
var rocksdbAssertTexts = []string{"sync_without_flush_called_", "num_buckets_ > 0"}

// The release binary must run on a node without librocksdb and must not abort where RocksDB
// returns an error: build it exactly as the release does (scripts/static-build.sh carries
// .goreleaser.yaml's flags), check what it links and holds, and run it on the committed format 3
// fixture. The library is the one the whole suite links (scripts/rocksdb-env.sh), so it is
// always built by the time this runs.
func TestStaticReleaseBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("links a static binary (about a minute); run without -short")
	}
	bin := filepath.Join(t.TempDir(), "ankusa-store")
	build := exec.Command("bash", "scripts/static-build.sh", bin, "v0.0.0-test")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("static build: %v\n%s", err, out)
	}

	// Compiled with the profile of a bulk migration (default.pgo, bench/pgo_profile.sh): the
	// go command reads it from the main package's directory unless told otherwise.
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	pgo := ""
	for _, s := range info.Settings {
		if s.Key == "-pgo" {
			pgo = s.Value
		}
	}
	if filepath.Base(pgo) != "default.pgo" {
		t.Errorf("the release binary was not compiled with default.pgo (its -pgo setting: %q)", pgo)
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

	image, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, text := range rocksdbAssertTexts {
		if bytes.Contains(image, []byte(text)) {
			found = append(found, text)
		}
	}

	text, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("version: %v\n%s", err, text)
	}
	for _, want := range []string{"v0.0.0-test", "rocksdb 11.1.2", "release build (no assertions)", "linked statically", "table format_version", "store formats"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("version output lacks %q:\n%s", want, text)
		}
	}
	js, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("version -o json: %v\n%s", err, js)
	}
	var v struct {
		RocksDB       string `json:"rocksdb"`
		RocksDBBuild  string `json:"rocksdb_build"`
		RocksDBLinked string `json:"rocksdb_linked"`
	}
	if err := json.Unmarshal(js, &v); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, js)
	}
	if v.RocksDB != "11.1.2" || v.RocksDBLinked != "static" || v.RocksDBBuild != "release" {
		t.Errorf("version -o json: rocksdb %q %s linked %q, want 11.1.2 release static", v.RocksDB, v.RocksDBBuild, v.RocksDBLinked)
	}
	if len(found) > 0 {
		t.Errorf("the release binary holds RocksDB's assertion texts %q", found)
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
