package rocks

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/linxGnu/grocksdb"

	"github.com/ankusa/ankusa-store/internal/nofollow"
	"github.com/ankusa/ankusa-store/pkg/format"
)

// A store this tool creates (fixture) is left as a node of one binding release leaves its
// store: with that node's OPTIONS file, naming the release's RocksDB and how each family's
// tables are written. Without one, status said "store written by unknown (no OPTIONS file)"
// of every sample store while a node's always has one, and the write rule fell back on the
// tables. This build's own OPTIONS file is no substitute: it names RocksDB 11.1.2 and options
// older RocksDBs refuse (optionsfile.go).
//
// The file holds what the write rule and status read back (the [Version], and per family
// compression, compression_per_level, bottommost_compression,
// level_compaction_dynamic_level_bytes, format_version and checksum), as the rule wrote the
// store's tables, and options every RocksDB from 7.7 knows; a node's own file lists all of
// its options, which a reader takes at their defaults here. It takes the name of the newest
// OPTIONS file RocksDB wrote while the tool made the store, a file number RocksDB handed out:
// a later open's file is numbered above it, as after a node's own open.

// checksumOptionNames is checksumNames the other way.
func checksumOptionName(c byte) string {
	for n, v := range checksumNames {
		if v == c {
			return n
		}
	}
	return "kCRC32c"
}

// compressionOptionName is a compression as an OPTIONS file names it.
func compressionOptionName(c grocksdb.CompressionType) string {
	for n, v := range compressionOptionNames {
		if v == c && n != "kZSTDNotFinalCompression" {
			return n
		}
	}
	return "kSnappyCompression"
}

// nodeOptionsText is the OPTIONS file a node on release r leaves in a store whose families
// are written by rule w.
func nodeOptionsText(r BindingRelease, w WriteRule, families []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# This is a RocksDB option file.\n#\n# For detailed file format spec, please refer to the example file\n"+
		"# in examples/rocksdb_option_file_example.ini\n#\n\n[Version]\n  rocksdb_version=%s\n  options_file_version=1.1\n\n"+
		"[DBOptions]\n  create_if_missing=true\n  create_missing_column_families=true\n\n", r.RocksDB)
	// RocksDB's parser takes the default family's section first, and each family's table
	// section after its own.
	families = slices.Clone(families)
	slices.SortFunc(families, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == format.CFDefault:
			return -1
		case b == format.CFDefault:
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, cf := range families {
		t := w.For(cf)
		var levels []string
		for _, c := range t.PerLevel {
			levels = append(levels, compressionOptionName(c))
		}
		bottom := "kDisableCompressionOption"
		if t.BottommostSet {
			bottom = compressionOptionName(t.Bottommost)
		}
		fmt.Fprintf(&b, "[CFOptions %q]\n  compression=%s\n  compression_per_level=%s\n  bottommost_compression=%s\n  level_compaction_dynamic_level_bytes=%t\n\n",
			cf, compressionOptionName(t.Compression), strings.Join(levels, ":"), bottom, t.DynamicLevels)
		fmt.Fprintf(&b, "[TableOptions/BlockBasedTable %q]\n  format_version=%d\n  checksum=%s\n\n", cf, t.FormatVersion, checksumOptionName(t.Checksum))
	}
	return b.String()
}

// leaveNodeOptions replaces the OPTIONS files this build's RocksDB wrote in the store it
// created, dir, with the file a node on w.Node leaves (none when w.Node is ""), under the
// newest one's name.
func leaveNodeOptions(dir string, w WriteRule, families []string) error {
	names := optionsNames(dir)
	slices.Sort(names) // OPTIONS-%06d: a name's order is its number's below 10^6 files
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			return err
		}
	}
	if w.Node == "" || len(names) == 0 {
		return nil
	}
	r, ok := FindRelease(w.Node)
	if !ok {
		return fmt.Errorf("rocks: erlang-rocksdb %s is no release this tool knows", w.Node)
	}
	if err := nofollow.Create(filepath.Join(dir, names[len(names)-1]), []byte(nodeOptionsText(r, w, families)), true); err != nil {
		return err
	}
	return nofollow.SyncDir(dir)
}
