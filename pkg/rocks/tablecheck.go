package rocks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Debian's RocksDB is built with assertions on, and one read in it parses a block before
// checking its checksum: a table file's properties block is read with verify_checksums off
// (table/meta_blocks.cc ReadTablePropertiesHelper: an ingested file's global seqno may have
// been rewritten in place), parsed as a Block, and only then checked. A flipped bit in the
// block's restart count can set the data-block-hash-index flag, and Block's constructor then
// aborts the process (data_block_hash_index.cc: assert(num_buckets_ > 0)) while the DB is
// opening; no option turns that read's check on. Every other block is checked before it is
// parsed (verify_checksums is on in every read we make, and paranoid_checks at open).
//
// So before RocksDB opens a store, checkTables reads the tail of each table file the way
// RocksDB will (footer, metaindex block, properties block) and verifies those two blocks'
// checksums itself. It costs three small reads a table file (RocksDB reads the same bytes
// moments later, with max_open_files -1, so they are in the page cache for it). A file it
// cannot make sense of (no block-based magic yet: a compaction output being written; an
// unknown format version or checksum type) is left to RocksDB, which reports those cleanly.

const (
	magicBlockBased       = 0x88e241b785f4cff7
	magicLegacyBlockBased = 0xdb4775248b80fb57
	footerLen             = 1 + 2*20 + 4 + 8 // Footer::kNewVersionsEncodedLength
	legacyFooterLen       = 2*20 + 8         // Footer::kVersion0EncodedLength
	blockTrailerLen       = 5                // compression type + checksum
	maxFormatVersion      = 5                // 7.8.3's newest
	propertiesBlockName   = "rocksdb.properties"
)

var tableFileRE = regexp.MustCompile(`^[0-9]+\.(sst|ldb)$`)

// TableError is a table file whose damage the tool found before RocksDB read it.
type TableError struct {
	File  string // base name, e.g. 000041.sst
	Block string // "metaindex" or "properties"
	Want  uint32 // the checksum stored in the file
	Got   uint32 // the checksum of the block's bytes
}

func (e *TableError) Error() string {
	return fmt.Sprintf("%s: block checksum mismatch in %s (its %s block: stored %#x, computed %#x): %s",
		ErrCorrupt, e.File, e.Block, e.Want, e.Got, corruptAdvice)
}

func (e *TableError) Is(target error) bool { return target == ErrCorrupt }

// checkTables verifies the metaindex and properties blocks of every table file in dir. A file
// that vanishes while it runs (a live writer compacted it away) is skipped.
func checkTables(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrNotStore, dir, err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !tableFileRE.MatchString(e.Name()) {
			continue
		}
		if err := checkTable(filepath.Join(dir, e.Name())); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return err
		}
	}
	return nil
}

// checkTable verifies one table file's metaindex and properties blocks (see above).
func checkTable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size < legacyFooterLen {
		return nil // RocksDB: "file is too short to be an sstable"
	}
	tail := make([]byte, min(size, footerLen))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return err
	}
	magic := binary.LittleEndian.Uint64(tail[len(tail)-8:])
	var (
		sumType byte
		handles []byte
	)
	switch magic {
	case magicLegacyBlockBased:
		sumType, handles = sumCRC32c, tail[len(tail)-legacyFooterLen:]
	case magicBlockBased:
		if len(tail) < footerLen {
			return nil
		}
		v := binary.LittleEndian.Uint32(tail[len(tail)-12:])
		if v < 1 || v > maxFormatVersion {
			return nil
		}
		sumType, handles = tail[0], tail[1:]
	default:
		return nil // not (yet) a block-based table: RocksDB reports a bad magic itself
	}
	if sumType > sumXXH3 {
		return nil
	}
	return checkTableBlocks(f, size, sumType, handles)
}

// footerOK reports whether a table file's footer parses (magic, format version, checksum
// type) the way RocksDB's Footer::DecodeFrom requires.
func footerOK(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil || len(b) < legacyFooterLen {
		return err != nil // a vanished file is not a suspect
	}
	switch binary.LittleEndian.Uint64(b[len(b)-8:]) {
	case magicLegacyBlockBased:
		return true
	case magicBlockBased:
		if len(b) < footerLen {
			return false
		}
		v := binary.LittleEndian.Uint32(b[len(b)-12:])
		return v >= 1 && v <= maxFormatVersion && b[len(b)-footerLen] <= sumXXH3
	}
	return false
}

// suspectFiles names the files a corruption found at open is about when RocksDB's text does
// not name one: a table file whose footer does not parse ("Corrupt or unsupported
// format_version ... in file MANIFEST"), or else the WAL files being replayed (the WAL reader
// says only "checksum mismatch"). Beside a live writer a table file still being written has
// no footer yet and is named too; the names are for the operator, never for the class.
func suspectFiles(dir string, st Status) []string {
	if !st.Corrupt() || st.Vanished() {
		return nil
	}
	if f := st.File(); f != "" && !strings.HasPrefix(f, "MANIFEST-") {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var tables, wals []string
	for _, e := range ents {
		n := e.Name()
		switch {
		case tableFileRE.MatchString(n):
			if !footerOK(filepath.Join(dir, n)) {
				tables = append(tables, n)
			}
		case strings.HasSuffix(n, ".log") && n != "LOG":
			wals = append(wals, n)
		}
	}
	if len(tables) > 0 {
		return tables
	}
	if st.File() == "" {
		return wals
	}
	return nil
}

func checkTableBlocks(f *os.File, size int64, sumType byte, handles []byte) error {
	path := f.Name()
	meta, ok := decodeHandle(handles)
	if !ok {
		return nil
	}
	name := filepath.Base(path)
	b, ok, err := readBlock(f, size, meta, sumType, name, "metaindex")
	if err != nil || !ok {
		return err
	}
	props, found := findMeta(b, propertiesBlockName)
	if !found {
		return nil
	}
	_, _, err = readBlock(f, size, props, sumType, name, "properties")
	return err
}

type blockHandle struct{ off, size uint64 }

func decodeHandle(b []byte) (blockHandle, bool) {
	off, n := binary.Uvarint(b)
	if n <= 0 {
		return blockHandle{}, false
	}
	sz, m := binary.Uvarint(b[n:])
	if m <= 0 {
		return blockHandle{}, false
	}
	return blockHandle{off, sz}, true
}

// readBlock reads a block and its trailer and verifies its checksum; ok is false when the
// handle points outside the file (RocksDB reports that itself).
func readBlock(f *os.File, size int64, h blockHandle, sumType byte, name, what string) ([]byte, bool, error) {
	if h.size > uint64(size) || h.off > uint64(size)-h.size || uint64(size)-h.size-h.off < blockTrailerLen {
		return nil, false, nil
	}
	buf := make([]byte, h.size+blockTrailerLen)
	if _, err := f.ReadAt(buf, int64(h.off)); err != nil {
		return nil, false, err
	}
	if sumType == sumNone {
		return buf[:h.size], true, nil
	}
	want := binary.LittleEndian.Uint32(buf[h.size+1:])
	got, known := blockChecksum(sumType, buf[:h.size+1])
	if known && got != want {
		return nil, false, &TableError{File: name, Block: what, Want: want, Got: got}
	}
	return buf[:h.size], true, nil
}

// findMeta looks key up in a (checksum-verified, uncompressed) metaindex block and decodes its
// value as a block handle.
func findMeta(b []byte, key string) (blockHandle, bool) {
	if len(b) < 4 {
		return blockHandle{}, false
	}
	nr := binary.LittleEndian.Uint32(b[len(b)-4:]) & 0x7fffffff
	if uint64(nr)*4+4 > uint64(len(b)) {
		return blockHandle{}, false
	}
	end := len(b) - 4 - int(nr)*4
	var prev []byte
	for p := 0; p < end; {
		shared, n1 := binary.Uvarint(b[p:end])
		if n1 <= 0 {
			return blockHandle{}, false
		}
		p += n1
		nonShared, n2 := binary.Uvarint(b[p:end])
		if n2 <= 0 {
			return blockHandle{}, false
		}
		p += n2
		vlen, n3 := binary.Uvarint(b[p:end])
		if n3 <= 0 {
			return blockHandle{}, false
		}
		p += n3
		if shared > uint64(len(prev)) || nonShared > uint64(end-p) || vlen > uint64(end-p)-nonShared {
			return blockHandle{}, false
		}
		k := append(prev[:shared:shared], b[p:p+int(nonShared)]...)
		p += int(nonShared)
		v := b[p : p+int(vlen)]
		p += int(vlen)
		if string(k) == key {
			return decodeHandle(v)
		}
		prev = k
	}
	return blockHandle{}, false
}
