package rocks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/pkg/format"
)

// The write rule: what a read-write open writes into a store must be what that store's node
// reads. This build's RocksDB (11.1) writes format_version 7 tables by default, which the
// RocksDB of every node before erlang-rocksdb 3.x refuses (1.8's 7.7.3 refuses 6 too): after an upgrade the node would
// not boot. The same holds for a compression the node's build lacks. So before anything is
// written, the table options of every family are chosen from the store itself:
//
//  1. The node's own OPTIONS file: the newest OPTIONS file not written by this build's
//     RocksDB. Its [Version] names the node's RocksDB, and its sections say how the node
//     configured each family: format_version and checksum ([TableOptions/BlockBasedTable]),
//     compression, compression_per_level and bottommost_compression ([CFOptions]). The
//     format_version is never above what that RocksDB reads (readsUpTo) nor above what
//     this build writes.
//  2. Otherwise, the newest OPTIONS file this build's RocksDB wrote: it records the options
//     this rule chose the previous time (RocksDB keeps only the two newest OPTIONS files, so
//     two read-write opens by this tool push the node's own out), and carrying them forward
//     keeps what the node reads. An OPTIONS file from a node that happens to run this same
//     RocksDB records what that node configured, which it reads: the same outcome.
//  3. Otherwise (no OPTIONS file at all), what the live tables use: the lowest format_version
//     among them, their checksum type and each family's compression (table properties).
//  4. A store with neither: the defaults of the oldest node supported (RocksDB 7.7.3):
//     format_version 5, crc32c, snappy, levels not dynamic.
//
// The node's level_compaction_dynamic_level_bytes comes along (RocksDB 7 off, 9 on): it is
// how the node lays out its levels, and without an OPTIONS file RocksDB 7's off is taken.
//
// counters is written uncompressed at every level whatever the rule says: the contract pins
// it so. A family the rule has no entry for (one the migration creates) takes the default
// family's.

// Checksum types, as RocksDB's OPTIONS file names them.
var checksumNames = map[string]byte{
	"kNoChecksum": sumNone, "kCRC32c": sumCRC32c, "kxxHash": sumXXHash,
	"kxxHash64": sumXXHash64, "kXXH3": sumXXH3,
}

// Compression types: the OPTIONS file's names and the table property's (CompressionTypeToString).
var (
	compressionOptionNames = map[string]grocksdb.CompressionType{
		"kNoCompression": grocksdb.NoCompression, "kSnappyCompression": grocksdb.SnappyCompression,
		"kZlibCompression": grocksdb.ZLibCompression, "kBZip2Compression": grocksdb.Bz2Compression,
		"kLZ4Compression": grocksdb.LZ4Compression, "kLZ4HCCompression": grocksdb.LZ4HCCompression,
		"kXpressCompression": grocksdb.XpressCompression, "kZSTD": grocksdb.ZSTDCompression,
		"kZSTDNotFinalCompression": grocksdb.ZSTDCompression,
	}
	compressionPropertyNames = map[string]grocksdb.CompressionType{
		"NoCompression": grocksdb.NoCompression, "Snappy": grocksdb.SnappyCompression,
		"Zlib": grocksdb.ZLibCompression, "BZip2": grocksdb.Bz2Compression,
		"LZ4": grocksdb.LZ4Compression, "LZ4HC": grocksdb.LZ4HCCompression,
		"Xpress": grocksdb.XpressCompression, "ZSTD": grocksdb.ZSTDCompression,
		"ZSTDNotFinal": grocksdb.ZSTDCompression,
	}
)

// CompressionName is a compression type as RocksDB's table properties name it.
func CompressionName(c grocksdb.CompressionType) string {
	for n, v := range compressionPropertyNames {
		if v == c && n != "ZSTDNotFinal" {
			return n
		}
	}
	return fmt.Sprintf("Compression(%d)", int(c))
}

// ParseCompression reads a compression by its table-property name, case-insensitively
// ("snappy", "zstd", "none" for NoCompression).
func ParseCompression(s string) (grocksdb.CompressionType, error) {
	if strings.EqualFold(s, "none") {
		return grocksdb.NoCompression, nil
	}
	for n, v := range compressionPropertyNames {
		if strings.EqualFold(n, s) && n != "ZSTDNotFinal" {
			return v, nil
		}
	}
	return 0, fmt.Errorf("unknown compression %q (none, snappy, lz4, lz4hc, zlib, bzip2, zstd)", s)
}

// TableRule is how one family's new tables are written.
type TableRule struct {
	FormatVersion int
	Checksum      byte
	Compression   grocksdb.CompressionType
	// PerLevel, when set, is the compression of each level (compression_per_level).
	PerLevel []grocksdb.CompressionType
	// Bottommost, when BottommostSet, is the bottommost level's compression.
	Bottommost    grocksdb.CompressionType
	BottommostSet bool
	// DynamicLevels is level_compaction_dynamic_level_bytes as the node runs it: not a
	// matter of what a reader can read, but of where the node expects its levels (RocksDB
	// 7's default is off, 9's on; on, a bulk write compacts level 0 straight into the last
	// level, which the migration's tuning was never measured for: at 10^7 rows its
	// compaction CPU was 56 s, against 49.8 s with it off).
	DynamicLevels bool
}

// WriteRule is the table options a read-write open writes with, chosen from the store.
type WriteRule struct {
	// Source says where the rule came from, for notes and errors.
	Source string
	// WriterVersion is the RocksDB of the node that wrote the store, "" when unknown.
	WriterVersion string
	Families      map[string]TableRule
	Default       TableRule
	// Node, for a store this tool creates, is the erlang-rocksdb release whose node's OPTIONS
	// file the store is left with ("" leaves none): nodeoptions.go.
	Node string
}

// For returns the rule for family cf.
func (w WriteRule) For(cf string) TableRule {
	r, ok := w.Families[cf]
	if !ok {
		r = w.Default
	}
	if cf == format.CFCounters {
		r.Compression, r.PerLevel, r.Bottommost, r.BottommostSet = grocksdb.NoCompression, nil, 0, false
	}
	return r
}

// String is the rule in one line: "format_version 5, crc32c, snappy (from OPTIONS-000012,
// RocksDB 7.7.3)".
func (w WriteRule) String() string {
	fvs := []int{w.Default.FormatVersion}
	for _, r := range w.Families {
		fvs = append(fvs, r.FormatVersion)
	}
	slices.Sort(fvs)
	var fv []string
	for _, v := range slices.Compact(fvs) {
		fv = append(fv, strconv.Itoa(v))
	}
	return fmt.Sprintf("table format_version %s, default compression %s (%s)",
		strings.Join(fv, "/"), CompressionName(w.Default.Compression), w.Source)
}

// OldestNodeRule is the rule of a store that says nothing of its writer: the defaults of
// the oldest node supported (erlang-rocksdb 1.8, RocksDB 7.7.3).
func OldestNodeRule(source string) WriteRule {
	r := NewStoreRule(5, grocksdb.SnappyCompression)
	r.Source = source
	return r
}

// NewStoreRule is the rule for a store this tool creates (fixture): formatVersion and
// compression as asked, crc32c (every supported node reads both).
func NewStoreRule(formatVersion int, compression grocksdb.CompressionType) WriteRule {
	return WriteRule{Source: "a new store", Default: TableRule{FormatVersion: formatVersion,
		Checksum: sumCRC32c, Compression: compression}}
}

// readsUpTo is the newest table format_version a RocksDB of the given version reads:
// 6 from 8.6 (where it was added; it became the default in 9.0), 7 from 10.4.
func readsUpTo(version string) int {
	switch {
	case version == "":
		return 5
	case !NewerThan("8.6.0", version):
		if !NewerThan("10.4.0", version) {
			return 7
		}
		return 6
	case !NewerThan("6.6.0", version):
		return 5
	}
	return 4
}

// ChooseWriteRule reads the rule for the store in dir (see the top of this file). It opens
// nothing and writes nothing.
func ChooseWriteRule(dir string) (WriteRule, error) {
	ofs := readOptionsFiles(dir)
	own := LibraryVersion()
	for _, of := range ofs {
		if of.RocksDBVersion != own {
			return ruleFromOptions(of, of.RocksDBVersion,
				fmt.Sprintf("from the node's %s, RocksDB %s", of.Name, of.RocksDBVersion)), nil
		}
	}
	if len(ofs) > 0 {
		of := ofs[0]
		// This build's version: a node on erlang-rocksdb 3.x runs the same RocksDB, and a
		// store this tool wrote before it kept OPTIONS files whole has its record; either way
		// the file says what the store's tables are to be.
		return ruleFromOptions(of, own,
			fmt.Sprintf("from %s, RocksDB %s (this tool's own version: a 3.x node's, or carried forward from this tool's)", of.Name, own)), nil
	}
	return ruleFromTables(dir)
}

func ruleFromOptions(of optionsFile, writer string, source string) WriteRule {
	// An OPTIONS file that names no RocksDB is an unknown writer's: the oldest node's limit
	// (readsUpTo("") is 5), never this build's newest.
	limit := min(MaxTableFormatVersion, readsUpTo(of.RocksDBVersion))
	w := WriteRule{Source: source, WriterVersion: writer, Families: map[string]TableRule{}}
	cfs := map[string]bool{}
	for cf := range of.CF {
		cfs[cf] = true
	}
	for cf := range of.Table {
		cfs[cf] = true
	}
	for cf := range cfs {
		// A family without a table section says nothing of its tables: the oldest node's 5.
		r := TableRule{FormatVersion: min(5, limit), Checksum: sumCRC32c, Compression: grocksdb.SnappyCompression}
		if t := of.Table[cf]; t != nil {
			if v, err := strconv.Atoi(t["format_version"]); err == nil && v >= 0 {
				r.FormatVersion = min(v, limit)
			}
			if c, ok := checksumNames[t["checksum"]]; ok {
				r.Checksum = c
			}
		}
		if o := of.CF[cf]; o != nil {
			if c, ok := compressionOptionNames[o["compression"]]; ok {
				r.Compression = c
			}
			if c, ok := compressionOptionNames[o["bottommost_compression"]]; ok {
				r.Bottommost, r.BottommostSet = c, true
			}
			r.DynamicLevels = o["level_compaction_dynamic_level_bytes"] == "true"
			if pl := o["compression_per_level"]; pl != "" {
				for _, n := range strings.Split(pl, ":") {
					if c, ok := compressionOptionNames[strings.TrimSpace(n)]; ok {
						r.PerLevel = append(r.PerLevel, c)
					}
				}
			}
		}
		w.Families[cf] = r
	}
	if d, ok := w.Families[format.CFDefault]; ok {
		w.Default = d
	} else {
		w.Default = TableRule{FormatVersion: min(5, limit), Checksum: sumCRC32c, Compression: grocksdb.SnappyCompression}
	}
	if r, ok := releaseOfRocksDB(writer); ok {
		w.keepCodecs(r)
	}
	return w
}

// keepCodecs makes every compression the rule would write one the node's build has, snappy
// in place of any other: the binding vendors snappy, lz4 and (from 2.6.0) zstd, never zlib or
// bzip2, while this tool's RocksDB links all five, so a file naming 11.1.2 (a 3.1 node's, or
// this tool's own carried forward) could otherwise have it write zlib tables a 3.x node
// cannot open. Every release reads snappy.
func (w *WriteRule) keepCodecs(r BindingRelease) {
	keep := func(c grocksdb.CompressionType) grocksdb.CompressionType {
		if r.Has(c) {
			return c
		}
		return grocksdb.SnappyCompression
	}
	fix := func(t TableRule) TableRule {
		t.Compression = keep(t.Compression)
		if t.BottommostSet {
			t.Bottommost = keep(t.Bottommost)
		}
		if len(t.PerLevel) > 0 {
			pl := make([]grocksdb.CompressionType, len(t.PerLevel))
			for i, c := range t.PerLevel {
				pl[i] = keep(c)
			}
			t.PerLevel = pl
		}
		return t
	}
	w.Default = fix(w.Default)
	for cf, t := range w.Families {
		w.Families[cf] = fix(t)
	}
}

// ruleFromTables is the rule of a store without OPTIONS files: what its live tables use.
func ruleFromTables(dir string) (WriteRule, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return WriteRule{}, err
	}
	type seen struct {
		num  uint64
		comp grocksdb.CompressionType
	}
	lowest, found := MaxTableFormatVersion, false
	checksum := byte(sumCRC32c)
	newest := map[string]seen{}
	for _, e := range ents {
		if !tableFileRE.MatchString(e.Name()) {
			continue
		}
		tp, err := readTableProperties(filepath.Join(dir, e.Name()))
		if err != nil || tp.Footer.Newer() {
			continue // damage and newer tables are the open's to report
		}
		if v := int(tp.Footer.Version); !found || v < lowest {
			lowest, checksum, found = v, tp.Footer.Checksum, true
		}
		num, _ := strconv.ParseUint(strings.SplitN(e.Name(), ".", 2)[0], 10, 64)
		c, ok := compressionPropertyNames[tp.Compression]
		if cf := tp.Family; ok && cf != "" && (newest[cf] == seen{} || num > newest[cf].num) {
			newest[cf] = seen{num, c}
		}
	}
	if !found {
		return OldestNodeRule("no OPTIONS file and no table: the oldest node's defaults"), nil
	}
	w := WriteRule{Source: "no OPTIONS file: what the live tables use", Families: map[string]TableRule{}}
	w.Default = TableRule{FormatVersion: lowest, Checksum: checksum, Compression: grocksdb.SnappyCompression}
	for cf, s := range newest {
		r := w.Default
		r.Compression = s.comp
		w.Families[cf] = r
	}
	if d, ok := w.Families[format.CFDefault]; ok {
		w.Default = d
	}
	return w, nil
}

// apply sets the rule's table options on a family's options, with the store's one block
// cache (blockcache.go).
func (r TableRule) apply(opts *grocksdb.Options, cache *grocksdb.Cache, indexOnHeap bool) {
	bbto := tableOptions(cache, indexOnHeap)
	bbto.SetFormatVersion(r.FormatVersion)
	bbto.SetChecksum(int8(r.Checksum))
	setTableFactory(opts, bbto)
	opts.SetCompression(r.Compression)
	opts.SetLevelCompactionDynamicLevelBytes(r.DynamicLevels)
	if len(r.PerLevel) > 0 {
		opts.SetCompressionPerLevel(r.PerLevel)
	}
	if r.BottommostSet {
		opts.SetBottommostCompression(r.Bottommost)
	}
}
