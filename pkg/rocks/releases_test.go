package rocks

import (
	"slices"
	"strings"
	"testing"

	"github.com/linxGnu/grocksdb"
)

// The table is in release order, and so in RocksDB order: WrittenBy's "tables" answer is a
// run of the table, named by its first and last rows.
func TestBindingReleasesInOrder(t *testing.T) {
	seen := map[string]bool{}
	for i, r := range BindingReleases {
		if len(r.Releases) == 0 || len(r.Codecs) == 0 {
			t.Fatalf("row %d is empty: %+v", i, r)
		}
		for _, v := range r.Releases {
			if seen[v] {
				t.Errorf("release %s listed twice", v)
			}
			seen[v] = true
		}
		if r.WritesTableFormat > r.ReadsTableFormat() {
			t.Errorf("%s: RocksDB %s writes format_version %d and reads only up to %d", r.Name(), r.RocksDB, r.WritesTableFormat, r.ReadsTableFormat())
		}
		if !r.Has(grocksdb.SnappyCompression) || r.Has(grocksdb.ZLibCompression) || r.Has(grocksdb.Bz2Compression) {
			t.Errorf("%s: codecs %s; every release has snappy, none zlib or bzip2", r.Name(), r.CodecNames())
		}
		if i == 0 {
			continue
		}
		p := BindingReleases[i-1]
		if !NewerThan(r.Releases[0], p.Releases[len(p.Releases)-1]) || !NewerThan(r.RocksDB, p.RocksDB) {
			t.Errorf("%s (RocksDB %s) does not follow %s (RocksDB %s)", r.Name(), r.RocksDB, p.Name(), p.RocksDB)
		}
	}
	if got := BindingReleases[len(BindingReleases)-1].ReadsTableFormat(); got != MaxTableFormatVersion {
		t.Errorf("the newest release reads up to %d; this build reads up to %d", got, MaxTableFormatVersion)
	}
}

func TestWrittenBy(t *testing.T) {
	tests := []struct {
		name    string
		rocksdb string
		tables  []int
		want    string
		by      string
	}{
		{"a 1.8 node's OPTIONS file", "7.7.3", []int{5}, "erlang-rocksdb 1.8.0 (RocksDB 7.7.3)", "options"},
		{"a 2.0 node's", "10.7.5", []int{6}, "erlang-rocksdb 2.0.0 - 2.5.0 (RocksDB 10.7.5)", "options"},
		{"a 3.0 node's", "11.1.1", []int{7}, "erlang-rocksdb 3.0.0 - 3.1.0 (RocksDB 11.1.1)", "options"},
		{"a 3.1.2 node's (this tool's RocksDB too)", "11.1.2", []int{7}, "erlang-rocksdb 3.1.1 - 3.1.2 (RocksDB 11.1.2)", "options"},
		{"Debian's 7.8.3, no node's: by the tables, all read 5", "7.8.3", []int{5}, "erlang-rocksdb 1.8.0 - 3.1.2 (RocksDB 7.7.3 - 11.1.2)", "tables"},
		{"no OPTIONS file, tables of 6", "", []int{5, 6}, "erlang-rocksdb 1.9.0 - 3.1.2 (RocksDB 9.10.0 - 11.1.2)", "tables"},
		{"no OPTIONS file, tables of 7", "", []int{7}, "erlang-rocksdb 2.0.0 - 3.1.2 (RocksDB 10.7.5 - 11.1.2)", "tables"},
		{"a RocksDB no release vendors, tables of 8", "12.0.0", []int{8}, "no erlang-rocksdb release this tool knows", "tables"},
		{"nothing at all", "", nil, "erlang-rocksdb 1.8.0 - 3.1.2 (RocksDB 7.7.3 - 11.1.2)", "nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fv := &FileVersions{RocksDBVersion: tt.rocksdb, SSTFormatVersions: map[int]int{}}
			for _, v := range tt.tables {
				fv.SSTFormatVersions[v]++
			}
			w := fv.WrittenBy()
			if got := w.String(); got != tt.want || w.By != tt.by {
				t.Errorf("%q by %s, want %q by %s", got, w.By, tt.want, tt.by)
			}
			for _, r := range w.Releases {
				if _, ok := FindRelease(r); !ok {
					t.Errorf("names %s, no release", r)
				}
			}
		})
	}
}

// keepCodecs turns every codec a release's build lacks into snappy: the default, each family,
// every level and the bottommost.
func TestKeepCodecs(t *testing.T) {
	r, _ := FindRelease("3.1.2")
	tr := TableRule{FormatVersion: 7, Compression: grocksdb.ZLibCompression, Bottommost: grocksdb.Bz2Compression, BottommostSet: true,
		PerLevel: []grocksdb.CompressionType{grocksdb.NoCompression, grocksdb.LZ4Compression, grocksdb.ZLibCompression, grocksdb.ZSTDCompression}}
	w := WriteRule{Default: tr, Families: map[string]TableRule{"hooks": tr}}
	w.keepCodecs(r)
	for _, got := range []TableRule{w.Default, w.For("hooks")} {
		var pl []string
		for _, c := range got.PerLevel {
			pl = append(pl, CompressionName(c))
		}
		s := CompressionName(got.Compression) + " " + CompressionName(got.Bottommost) + " " + strings.Join(pl, ":")
		if want := "Snappy Snappy NoCompression:LZ4:Snappy:ZSTD"; s != want {
			t.Errorf("%s, want %s", s, want)
		}
	}
	if tr.PerLevel[2] != grocksdb.ZLibCompression || !slices.Contains(tr.PerLevel, grocksdb.ZLibCompression) {
		t.Errorf("keepCodecs changed the caller's levels: %v", tr.PerLevel)
	}
}
