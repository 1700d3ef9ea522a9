package rocks

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// NumLevels is how many LSM levels the stats report (RocksDB's default num_levels).
const NumLevels = 7

// FamilyStats is what RocksDB itself knows about one column family, read from
// its properties: no key is read, so it costs the same on any store.
type FamilyStats struct {
	Name string `json:"name"`
	// EstimatedKeys is rocksdb.estimate-num-keys: memtables plus table
	// properties, which counts overwritten and deleted keys until a
	// compaction drops them.
	EstimatedKeys uint64 `json:"estimated_keys"`
	// SSTBytes is the size on disk of the family's live SST files.
	SSTBytes uint64 `json:"sst_bytes"`
	// MemtableBytes is rocksdb.cur-size-all-mem-tables of this process's
	// instance: on a read-only open, the WAL it replayed, not a running node's.
	MemtableBytes uint64 `json:"memtable_bytes"`
	// FilesPerLevel counts live SST files at levels 0..NumLevels-1.
	FilesPerLevel [NumLevels]int `json:"files_per_level"`
}

// FamilyStats reads the properties of every open column family, in the order
// RocksDB listed them.
func (d *DB) FamilyStats() ([]FamilyStats, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return nil, ErrClosed
	}
	out := make([]FamilyStats, 0, len(d.names))
	for _, n := range d.names {
		f := d.cfs[n]
		s := FamilyStats{Name: n}
		s.EstimatedKeys, _ = d.db.GetIntPropertyCF("rocksdb.estimate-num-keys", f.h)
		s.SSTBytes, _ = d.db.GetIntPropertyCF("rocksdb.total-sst-files-size", f.h)
		s.MemtableBytes, _ = d.db.GetIntPropertyCF("rocksdb.cur-size-all-mem-tables", f.h)
		for l := 0; l < NumLevels; l++ {
			// A string property: GetIntProperty fails on it.
			v, _ := strconv.Atoi(strings.TrimSpace(d.db.GetPropertyCF("rocksdb.num-files-at-level"+strconv.Itoa(l), f.h)))
			s.FilesPerLevel[l] = v
		}
		out = append(out, s)
	}
	return out, nil
}

// FileVersions is what the files of a store directory say about the RocksDB
// that wrote them, read without opening the store: the newest OPTIONS file's
// [Version] section and table format_version per family, and the
// format_version in the footer of every SST file.
type FileVersions struct {
	// OptionsFile is the newest OPTIONS-* file's name; "" if there is none.
	OptionsFile string `json:"options_file"`
	// RocksDBVersion is its rocksdb_version ("" when absent).
	RocksDBVersion string `json:"rocksdb_version"`
	// TableFormatVersions maps a column family to the block-based table
	// format_version its options ask new SST files to be written with.
	TableFormatVersions map[string]int `json:"table_format_versions"`
	// SSTFormatVersions counts SST files by the format_version in their footer.
	SSTFormatVersions map[int]int `json:"sst_format_versions"`
	// SSTFiles is how many SST files were read; UnreadableSST how many had
	// no footer this tool recognises (named in Problems).
	SSTFiles      int      `json:"sst_files"`
	UnreadableSST int      `json:"unreadable_sst"`
	WALFiles      int      `json:"wal_files"`
	WALBytes      uint64   `json:"wal_bytes"`
	Problems      []string `json:"problems,omitempty"`
}

// ReadFileVersions reads the versions recorded in the files of dir. It opens
// no database and takes no lock, so it works on a store that does not open.
func ReadFileVersions(dir string) (*FileVersions, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fv := &FileVersions{TableFormatVersions: map[string]int{}, SSTFormatVersions: map[int]int{}}
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".sst"):
			fv.SSTFiles++
			v, err := sstFormatVersion(filepath.Join(dir, n))
			if err != nil {
				fv.UnreadableSST++
				fv.Problems = append(fv.Problems, fmt.Sprintf("%s: %v", n, err))
				continue
			}
			fv.SSTFormatVersions[v]++
		case strings.HasSuffix(n, ".log"):
			info, err := e.Info()
			if err == nil {
				fv.WALFiles++
				fv.WALBytes += uint64(info.Size())
			}
		}
	}
	if ofs := readOptionsFiles(dir); len(ofs) > 0 {
		fv.OptionsFile, fv.RocksDBVersion = ofs[0].Name, ofs[0].RocksDBVersion
		for cf, t := range ofs[0].Table {
			if n, err := strconv.Atoi(t["format_version"]); err == nil {
				fv.TableFormatVersions[cf] = n
			}
		}
	}
	return fv, nil
}

// sstFormatVersion reads the format_version from an SST file's footer.
func sstFormatVersion(path string) (int, error) {
	f, err := openRegular(path, false) // a fifo planted as a table must not block status
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	ft, err := readFooter(f, info.Size())
	if err != nil {
		return 0, err
	}
	return int(ft.Version), nil
}

// NewerThan reports whether version a ("9.1.0") is above b ("7.8.3"),
// comparing major, minor and patch numerically; "" is never newer.
func NewerThan(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < 3; i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x > y
		}
	}
	return false
}

// MemoryUse is what an open store holds in RocksDB's memory, by RocksDB's own estimates:
// the bound a command's peak RSS rests on (blockcache.go).
type MemoryUse struct {
	// TableReaders is rocksdb.estimate-table-readers-mem over the open families: what the
	// open tables hold outside the block cache.
	TableReaders uint64
	// BlockCache is rocksdb.block-cache-usage of the families' one cache, BlockCachePinned
	// the part of it in use by a reader now.
	BlockCache, BlockCachePinned uint64
}

// MemoryUse reads the store's memory properties.
func (d *DB) MemoryUse() (MemoryUse, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.closed {
		return MemoryUse{}, ErrClosed
	}
	var m MemoryUse
	for _, n := range d.names {
		h := d.cfs[n].h
		v, _ := d.db.GetIntPropertyCF("rocksdb.estimate-table-readers-mem", h)
		m.TableReaders += v
	}
	// One cache for every family: any family's handle reads it.
	h := d.cfs[d.names[0]].h
	m.BlockCache, _ = d.db.GetIntPropertyCF("rocksdb.block-cache-usage", h)
	m.BlockCachePinned, _ = d.db.GetIntPropertyCF("rocksdb.block-cache-pinned-usage", h)
	return m, nil
}

// Ticker is one of RocksDB's tickers by its name in the statistics ("rocksdb.prefetch.bytes"),
// and whether the statistics hold it: false unless opened with Tuning.Statistics. Read by
// name from the statistics' text, not by the C API's number, which grocksdb numbers in its
// own list of RocksDB's tickers.
func (d *DB) Ticker(name string) (uint64, bool) {
	for _, line := range strings.Split(d.Statistics(), "\n") {
		if rest, ok := strings.CutPrefix(line, name+" COUNT : "); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// TableFileReads is how many reads of table files RocksDB has made (its tickers of the reads
// in the last level and in the others), and whether the statistics hold them.
func (d *DB) TableFileReads() (uint64, bool) {
	last, ok1 := d.Ticker("rocksdb.last.level.read.count")
	other, ok2 := d.Ticker("rocksdb.non.last.level.read.count")
	return last + other, ok1 && ok2
}
