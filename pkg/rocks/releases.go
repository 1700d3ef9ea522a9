package rocks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/linxGnu/grocksdb"
)

// The node reaches RocksDB through erlang-rocksdb (hex package rocksdb), which vendors its own
// RocksDB and builds it with the codecs it bundles. This table is the one place the tool says
// which releases exist and what each bundles: status names the releases that could have
// written a store from it, version and the write rule read it, and the docs test holds
// docs/format.md's compatibility table to it (cmd TestCompatibilityTableIsTheCode).
//
// Its facts are the binding's own: CHANGELOG.md ("bump to rocksdb version ..." in 1.8.0,
// 1.9.0, 2.0.0 and 2.6.0), the README of each release ("RocksDB x with snappy, lz4[, zstd]"),
// its CMake options (snappy and lz4 bundled; zstd from 2.6.0, "WITH_ZSTD=ON" with a bundled
// fallback; zlib and bzip2 never bundled, so never there for sure) and the release notes of
// 3.1.1 ("update vendored RocksDB to 11.1.2 (from 11.1.1)"). 2.6.0 and 2.6.1 were retired
// ("Release invalid") but published, so a node may have locked one; releases after 3.1.2
// are not listed until what they vendor is checked.

// BindingRelease is a run of erlang-rocksdb releases that vendor one RocksDB.
type BindingRelease struct {
	// Releases is every release of the run, oldest first.
	Releases []string
	// RocksDB is the RocksDB they vendor.
	RocksDB string
	// WritesTableFormat is that RocksDB's default table format_version (what the node
	// writes unless configured otherwise).
	WritesTableFormat int
	// Codecs is what its build always has besides no compression.
	Codecs []grocksdb.CompressionType
}

var (
	snappyLZ4     = []grocksdb.CompressionType{grocksdb.SnappyCompression, grocksdb.LZ4Compression, grocksdb.LZ4HCCompression}
	snappyLZ4ZSTD = append(slices.Clone(snappyLZ4), grocksdb.ZSTDCompression)
)

// BindingReleases is every erlang-rocksdb release a node may run, oldest first.
var BindingReleases = []BindingRelease{
	{[]string{"1.8.0"}, "7.7.3", 5, snappyLZ4},
	{[]string{"1.9.0"}, "9.10.0", 6, snappyLZ4},
	{[]string{"2.0.0", "2.1.0", "2.2.0", "2.3.0", "2.4.0", "2.4.1", "2.5.0"}, "10.7.5", 6, snappyLZ4},
	{[]string{"2.6.0", "2.6.1", "2.6.2"}, "10.10.1", 6, snappyLZ4ZSTD},
	{[]string{"3.0.0", "3.1.0"}, "11.1.1", 7, snappyLZ4ZSTD},
	{[]string{"3.1.1", "3.1.2"}, "11.1.2", 7, snappyLZ4ZSTD},
}

// Name is the run as people write it: "1.8.0", "2.0.0 - 2.5.0".
func (r BindingRelease) Name() string { return span(r.Releases[0], r.Releases[len(r.Releases)-1]) }

// ReadsTableFormat is the newest table format_version its RocksDB reads.
func (r BindingRelease) ReadsTableFormat() int { return readsUpTo(r.RocksDB) }

// Has says whether its build has codec c (no compression always).
func (r BindingRelease) Has(c grocksdb.CompressionType) bool {
	return c == grocksdb.NoCompression || slices.Contains(r.Codecs, c)
}

// CodecList is its codecs as the table properties name them, lower case: snappy, lz4, ...
func (r BindingRelease) CodecList() []string {
	var out []string
	for _, c := range r.Codecs {
		out = append(out, strings.ToLower(CompressionName(c)))
	}
	return out
}

// CodecNames is CodecList in one string, "snappy, lz4, lz4hc, zstd".
func (r BindingRelease) CodecNames() string { return strings.Join(r.CodecList(), ", ") }

// FindRelease is the run holding release name ("2.3.0").
func FindRelease(name string) (BindingRelease, bool) {
	for _, r := range BindingReleases {
		if slices.Contains(r.Releases, name) {
			return r, true
		}
	}
	return BindingRelease{}, false
}

// releaseOfRocksDB is the run vendoring RocksDB version v, if any does.
func releaseOfRocksDB(v string) (BindingRelease, bool) {
	for _, r := range BindingReleases {
		if r.RocksDB == v {
			return r, true
		}
	}
	return BindingRelease{}, false
}

func span(first, last string) string {
	if first == last {
		return first
	}
	return first + " - " + last
}

// WrittenBy is which binding releases could have written a store.
type WrittenBy struct {
	// Releases is every erlang-rocksdb release that could have written the store, oldest
	// first; empty when none could (a RocksDB no release vendors, with tables none reads).
	Releases []string `json:"releases"`
	// RocksDB is the RocksDB of each run of them, oldest first.
	RocksDB []string `json:"rocksdb"`
	// By says what decided: "options" (the store's newest OPTIONS file names the RocksDB a
	// release vendors), "tables" (the releases whose RocksDB reads every table's
	// format_version: the OPTIONS file names none of theirs, or there is none) or "nothing"
	// (neither an OPTIONS file nor a table: any release).
	By string `json:"by" jsondoc:"one of options, tables, nothing"`
}

// String is the answer in one line: "erlang-rocksdb 2.0.0 - 2.6.2 (RocksDB 10.7.5 - 10.10.1)".
func (w WrittenBy) String() string {
	if len(w.Releases) == 0 {
		return "no erlang-rocksdb release this tool knows"
	}
	return fmt.Sprintf("erlang-rocksdb %s (RocksDB %s)", span(w.Releases[0], w.Releases[len(w.Releases)-1]),
		span(w.RocksDB[0], w.RocksDB[len(w.RocksDB)-1]))
}

// WrittenBy answers from the store's files: the RocksDB the newest OPTIONS file names, when a
// release vendors it; else the releases whose RocksDB reads every table there is.
func (fv *FileVersions) WrittenBy() WrittenBy {
	if r, ok := releaseOfRocksDB(fv.RocksDBVersion); ok {
		return WrittenBy{Releases: slices.Clone(r.Releases), RocksDB: []string{r.RocksDB}, By: "options"}
	}
	newest := 0
	for v := range fv.SSTFormatVersions {
		newest = max(newest, v)
	}
	by := "tables"
	if newest == 0 && fv.RocksDBVersion == "" {
		by = "nothing"
	}
	return releasesReading(newest, by)
}

// SupportedReleases is every release whose stores the tool reads and writes.
func SupportedReleases() WrittenBy { return releasesReading(0, "nothing") }

// releasesReading is the releases whose RocksDB reads table format_version fv.
func releasesReading(fv int, by string) WrittenBy {
	w := WrittenBy{By: by, Releases: []string{}, RocksDB: []string{}}
	for _, r := range BindingReleases {
		if fv <= r.ReadsTableFormat() {
			w.Releases = append(w.Releases, r.Releases...)
			w.RocksDB = append(w.RocksDB, r.RocksDB)
		}
	}
	return w
}
