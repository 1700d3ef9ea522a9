package rocks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/pkg/format"
)

func TestReadsUpTo(t *testing.T) {
	tests := []struct {
		version string
		want    int
	}{
		{"7.7.3", 5}, {"7.8.3", 5}, {"8.5.4", 5}, {"8.6.0", 6}, {"9.10.0", 6}, {"9.11.2", 6},
		{"10.3.1", 6}, {"10.4.0", 7}, {"10.10.1", 7}, {"11.1.2", 7}, {"6.6.0", 5}, {"6.5.3", 4}, {"", 5},
	}
	for _, tt := range tests {
		if got := readsUpTo(tt.version); got != tt.want {
			t.Errorf("readsUpTo(%q) = %d, want %d", tt.version, got, tt.want)
		}
	}
}

// optionsText is an OPTIONS file as RocksDB writes one, cut to the sections the rule reads.
func optionsText(version string, fams map[string][3]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# This is a RocksDB option file.\n[Version]\n  rocksdb_version=%s\n  options_file_version=1.1\n\n[DBOptions]\n  create_if_missing=false\n\n", version)
	for _, cf := range slices.Sorted(func(yield func(string) bool) {
		for k := range fams {
			if !yield(k) {
				return
			}
		}
	}) {
		f := fams[cf]
		fmt.Fprintf(&b, "[CFOptions \"%s\"]\n  compression=%s\n  bottommost_compression=kDisableCompressionOption\n  compression_per_level=\n\n", cf, f[0])
		fmt.Fprintf(&b, "[TableOptions/BlockBasedTable \"%s\"]\n  format_version=%s\n  checksum=%s\n\n", cf, f[1], f[2])
	}
	return b.String()
}

func TestChooseWriteRule(t *testing.T) {
	own := LibraryVersion()
	type file struct {
		name, text string
	}
	node778 := optionsText("7.7.3", map[string][3]string{
		"default": {"kSnappyCompression", "5", "kCRC32c"}, "hooks": {"kLZ4Compression", "5", "kCRC32c"}})
	node10 := strings.ReplaceAll(optionsText("10.10.1", map[string][3]string{
		"default": {"kZSTD", "6", "kXXH3"}, "hooks": {"kZSTD", "6", "kXXH3"}}),
		"compression_per_level=\n", "compression_per_level=\n  level_compaction_dynamic_level_bytes=true\n")
	node11 := optionsText("11.1.2", map[string][3]string{"default": {"kLZ4Compression", "7", "kXXH3"}})
	ours := optionsText(own, map[string][3]string{"default": {"kSnappyCompression", "5", "kCRC32c"}, "hooks": {"kLZ4Compression", "5", "kCRC32c"}})
	oursDefaults := optionsText(own, map[string][3]string{"default": {"kSnappyCompression", "6", "kXXH3"}})
	tests := []struct {
		name  string
		files []file
		// want: per family, "fvN checksum compression"; source: a word of the rule's Source
		want   map[string]string
		source string
	}{
		{"node 7.7.3", []file{{"OPTIONS-000007", node778}},
			map[string]string{"default": "fv5 1 Snappy", "hooks": "fv5 1 LZ4", "tenants": "fv5 1 Snappy", "counters": "fv5 1 NoCompression"}, "7.7.3"},
		{"node 10.10.1 keeps its format 6, zstd and xxh3", []file{{"OPTIONS-000012", node10}},
			map[string]string{"default": "fv6 4 ZSTD", "hooks": "fv6 4 ZSTD", "counters": "fv6 4 NoCompression"}, "10.10.1"},
		{"node 11.1.2 (erlang-rocksdb 3.x): its format 7", []file{{"OPTIONS-000005", node11}},
			map[string]string{"default": "fv7 4 LZ4"}, "11.1.2"},
		{"node 11.1.2 configured format 6: 6", []file{{"OPTIONS-000005", strings.Replace(node11, "format_version=7", "format_version=6", 1)}},
			map[string]string{"default": "fv6 4 LZ4"}, "11.1.2"},
		// The binding vendors snappy, lz4 and zstd, never zlib or bzip2 (releases.go): a file
		// of a release's RocksDB naming one is not written as it says, but with snappy.
		{"node 11.1.2 (erlang-rocksdb 3.1.1 - 3.1.2) naming zlib: snappy", []file{{"OPTIONS-000005", strings.Replace(node11, "kLZ4Compression", "kZlibCompression", 1)}},
			map[string]string{"default": "fv7 4 Snappy"}, "11.1.2"},
		{"node 7.7.3 (erlang-rocksdb 1.8.0) naming bzip2 and zstd: snappy", []file{{"OPTIONS-000007", strings.Replace(strings.Replace(node778, "kLZ4Compression", "kZSTD", 1), "kSnappyCompression", "kBZip2Compression", 1)}},
			map[string]string{"default": "fv5 1 Snappy", "hooks": "fv5 1 Snappy"}, "7.7.3"},
		{"an OPTIONS file naming no RocksDB: an unknown writer, the oldest node's 5", []file{{"OPTIONS-000005", strings.Replace(node11, "rocksdb_version=11.1.2", "", 1)}},
			map[string]string{"default": "fv5 4 LZ4"}, "OPTIONS-000005"},
		{"an OPTIONS file without table sections: 5", []file{{"OPTIONS-000005", node11[:strings.Index(node11, "[TableOptions")]}},
			map[string]string{"default": "fv5 1 LZ4"}, "11.1.2"},
		{"this tool opened a 7.7.3 store once: the node's file still decides", []file{{"OPTIONS-000007", node778}, {"OPTIONS-000019", oursDefaults}},
			map[string]string{"default": "fv5 1 Snappy", "hooks": "fv5 1 LZ4"}, "7.7.3"},
		{"only this tool's files left: carried forward", []file{{"OPTIONS-000019", ours}, {"OPTIONS-000023", ours}},
			map[string]string{"default": "fv5 1 Snappy", "hooks": "fv5 1 LZ4"}, "carried forward"},
		{"the newest node file wins over an older node's", []file{{"OPTIONS-000007", node778}, {"OPTIONS-000031", node10}},
			map[string]string{"default": "fv6 4 ZSTD"}, "10.10.1"},
		{"no OPTIONS file, no table", nil, map[string]string{"default": "fv5 1 Snappy", "counters": "fv5 1 NoCompression"}, "oldest node"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w, err := ChooseWriteRule(dir)
			if err != nil {
				t.Fatal(err)
			}
			for cf, want := range tt.want {
				r := w.For(cf)
				if got := fmt.Sprintf("fv%d %d %s", r.FormatVersion, r.Checksum, CompressionName(r.Compression)); got != want {
					t.Errorf("%s: %s, want %s (%s)", cf, got, want, w.Source)
				}
			}
			if !strings.Contains(w.Source, tt.source) {
				t.Errorf("source %q lacks %q", w.Source, tt.source)
			}
			// Dynamic levels as the node runs them: on in the 10.10.1 node's file only.
			if got, want := w.For(format.CFDefault).DynamicLevels, w.WriterVersion == "10.10.1"; got != want {
				t.Errorf("dynamic levels %v, want %v", got, want)
			}
		})
	}
}

// Without an OPTIONS file the live tables decide: their lowest format_version, and each
// family's compression as its newest table records it.
func TestWriteRuleFromTables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	rule := WriteRule{Source: "test", Default: TableRule{FormatVersion: 5, Checksum: sumXXH3, Compression: grocksdb.LZ4Compression},
		Families: map[string]TableRule{format.CFHooks: {FormatVersion: 5, Checksum: sumXXH3, Compression: grocksdb.ZLibCompression}}}
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3, NewTables: &rule})
	if err != nil {
		t.Fatal(err)
	}
	b := NewBatch()
	b.Put(format.CFDefault, []byte("k"), []byte("v"))
	b.Put(format.CFHooks, []byte("h"), []byte("v"))
	if err := st.Write(b, true); err != nil {
		t.Fatal(err)
	}
	for _, cf := range []string{format.CFDefault, format.CFHooks} {
		if err := st.DB.Flush(cf); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	opts, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
	for _, o := range opts {
		os.Remove(o)
	}
	w, err := ChooseWriteRule(dir)
	if err != nil {
		t.Fatal(err)
	}
	for cf, want := range map[string]string{format.CFDefault: "fv5 4 LZ4", format.CFHooks: "fv5 4 Zlib", format.CFCounters: "fv5 4 NoCompression"} {
		r := w.For(cf)
		if got := fmt.Sprintf("fv%d %d %s", r.FormatVersion, r.Checksum, CompressionName(r.Compression)); got != want {
			t.Errorf("%s: %s, want %s (%s)", cf, got, want, w.Source)
		}
	}
}

// A store without OPTIONS files whose tables are of two format_versions (a node upgraded
// from 5 to 6 whose OPTIONS files were lost) gets the lower one: every reader the store
// has had reads it. The older tables are the 5s here, so neither "the highest" nor "the
// newest table's" would pass: the rule, and the table a read-write open then writes.
func TestMixedStoreWithoutOptionsGetsTheLowestVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	removeOptions := func() {
		m, _ := filepath.Glob(filepath.Join(dir, "OPTIONS-*"))
		for _, p := range m {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeFlush := func(st *Store, k string) {
		b := NewBatch()
		b.Put(format.CFDefault, []byte(k), []byte("v"))
		if err := st.Write(b, true); err != nil {
			t.Fatal(err)
		}
		if err := st.DB.Flush(format.CFDefault); err != nil {
			t.Fatal(err)
		}
	}
	rule := NewStoreRule(5, grocksdb.SnappyCompression)
	st, err := OpenStore(dir, Options{Mode: ReadWrite, Create: true, CreateFormat: format.Format3, NewTables: &rule})
	if err != nil {
		t.Fatal(err)
	}
	writeFlush(st, "k5")
	st.Close()
	removeOptions()
	// A node on RocksDB 11.1.2 writing format_version 6 opens it next.
	node := optionsText("11.1.2", map[string][3]string{"default": {"kSnappyCompression", "6", "kCRC32c"}})
	if err := os.WriteFile(filepath.Join(dir, "OPTIONS-000099"), []byte(node), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err = OpenStore(dir, Options{Mode: ReadWrite}); err != nil {
		t.Fatal(err)
	}
	writeFlush(st, "k6")
	st.Close()
	removeOptions()
	versions := map[int]bool{}
	for _, f := range tablesOf(t, dir) {
		ti, err := ReadTableInfo(f)
		if err != nil {
			t.Fatal(err)
		}
		if ti.Family == format.CFDefault {
			versions[ti.FormatVersion] = true
		}
	}
	if !versions[5] || !versions[6] {
		t.Fatalf("the default family's tables are of versions %v, want 5 and 6", versions)
	}

	w, err := ChooseWriteRule(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.For(format.CFDefault).FormatVersion; got != 5 {
		t.Errorf("a mixed 5/6 store without OPTIONS: rule %s, format_version %d for default, want 5", w, got)
	}
	before := map[string]bool{}
	for _, f := range tablesOf(t, dir) {
		before[f] = true
	}
	if st, err = OpenStore(dir, Options{Mode: ReadWrite}); err != nil {
		t.Fatal(err)
	}
	writeFlush(st, "k?")
	st.Close()
	written := 0
	for _, f := range tablesOf(t, dir) {
		if before[f] {
			continue
		}
		written++
		ti, err := ReadTableInfo(f)
		if err != nil {
			t.Fatal(err)
		}
		if ti.FormatVersion != 5 {
			t.Errorf("%s written into the mixed store: format_version %d, want 5", filepath.Base(f), ti.FormatVersion)
		}
	}
	if written == 0 {
		t.Fatal("the read-write open wrote no table")
	}
}
