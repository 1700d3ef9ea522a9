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

	"github.com/ankusa/ankusa-store/internal/access"
)

// One read in RocksDB parses a block before checking its checksum: a table file's properties
// block is read with verify_checksums off (table/meta_blocks.cc ReadTablePropertiesHelper: an
// ingested file's global seqno may have been rewritten in place), parsed as a Block, and only
// then checked. A flipped bit in the block's restart count can set the data-block-hash-index
// flag, and Block's constructor then aborts a build with assertions
// (data_block_hash_index.cc: assert(num_buckets_ > 0)) while the DB is opening, and a release
// build goes on with a damaged block; no option turns that read's check on. Every other block
// is checked before it is parsed (verify_checksums is on in every read we make, and
// paranoid_checks at open).
//
// So before RocksDB opens a store, checkTables reads the tail of each table file the way
// RocksDB will (footer, metaindex block, properties block) and verifies those two blocks'
// checksums itself. It costs three small reads a table file (RocksDB reads the same bytes
// moments later, with max_open_files -1, so they are in the page cache for it). A file it
// cannot make sense of (no block-based magic yet: a compaction output being written; a
// damaged footer) is left to RocksDB, which reports those cleanly; a table of a newer
// format_version is refused here, as such (tablefooter.go).

const propertiesBlockName = "rocksdb.properties"

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

// checkTables verifies the metaindex and properties blocks of every table file in dir, and
// refuses a store holding a table newer than this build reads (*NewerTableError) before
// RocksDB sees it: RocksDB would call that table corrupt. A file that vanishes while it runs
// (a live writer compacted it away) is skipped.
func checkTables(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return access.Check(err, dir, false)
		}
		return fmt.Errorf("%w: %s: %v", ErrNotStore, dir, err)
	}
	var newer *NewerTableError
	for _, e := range ents {
		if !e.Type().IsRegular() || !tableFileRE.MatchString(e.Name()) {
			continue
		}
		ft, err := checkTable(filepath.Join(dir, e.Name()))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return access.Check(err, filepath.Join(dir, e.Name()), false)
		}
		if ft.Newer() {
			if newer == nil {
				newer = &NewerTableError{Dir: dir, File: e.Name(), Version: ft.Version, FutureFeature: ft.FutureFeature}
			} else {
				newer.More++
			}
		}
	}
	if newer != nil {
		newer.describeWriter()
		return newer
	}
	return nil
}

// checkTable verifies one table file's metaindex and properties blocks (see above) and
// returns its footer. A footer that does not decode is left to RocksDB, which reports it
// (and suspectFiles names the file); a table newer than this build is not read further.
func checkTable(path string) (footer, error) {
	f, err := openRegular(path, false)
	if err != nil {
		return footer{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return footer{}, err
	}
	ft, err := readFooter(f, st.Size())
	var fe *footerError
	if errors.Is(err, errNotBlockBased) || errors.As(err, &fe) {
		return footer{}, nil
	}
	if err != nil || ft.Newer() {
		return ft, err
	}
	return ft, checkTableBlocks(f, st.Size(), ft)
}

// footerOK reports whether a table file's footer decodes the way RocksDB's Footer::DecodeFrom
// requires (a table newer than this build decodes: it is not damaged).
func footerOK(path string) bool {
	f, err := openRegular(path, false)
	if err != nil {
		return true // a vanished file is not a suspect
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return true
	}
	_, err = readFooter(f, st.Size())
	return err == nil
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

func checkTableBlocks(f *os.File, size int64, ft footer) error {
	_, _, err := propertiesBlock(f, size, ft)
	return err
}

// propertiesBlock reads and verifies a table's metaindex block and, through it, its
// properties block. missing names what could not be reached ("" when the block was read):
// a handle outside the file or no properties entry, which RocksDB reports itself at open.
func propertiesBlock(f *os.File, size int64, ft footer) (props []byte, missing string, err error) {
	name := filepath.Base(f.Name())
	meta, ok, err := readBlock(f, size, ft.Metaindex, ft, name, "metaindex")
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "the metaindex handle points outside the file", nil
	}
	h, found := findMeta(meta, propertiesBlockName)
	if !found {
		return nil, "no properties block", nil
	}
	props, ok, err = readBlock(f, size, h, ft, name, "properties")
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "the properties handle points outside the file", nil
	}
	return props, "", nil
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

// readBlock reads a block and its trailer and verifies its checksum (with the context
// modifier of its offset from format_version 6); ok is false when the handle points outside
// the file (RocksDB reports that itself).
func readBlock(f *os.File, size int64, h blockHandle, ft footer, name, what string) ([]byte, bool, error) {
	if h.size > uint64(size) || h.off > uint64(size)-h.size || uint64(size)-h.size-h.off < blockTrailerLen {
		return nil, false, nil
	}
	buf := make([]byte, h.size+blockTrailerLen)
	if _, err := f.ReadAt(buf, int64(h.off)); err != nil {
		return nil, false, err
	}
	want := binary.LittleEndian.Uint32(buf[h.size+1:]) - contextModifier(ft.BaseContext, h.off)
	if ft.Checksum == sumNone {
		// A writer with checksums off stores 0 (plus the context modifier from format_version
		// 6): a stored checksum there means the footer's checksum type was changed to none,
		// which would turn every check RocksDB makes on this table off.
		if want != 0 {
			return nil, false, &TableError{File: name, Block: what, Want: want, Got: 0}
		}
		return buf[:h.size], true, nil
	}
	got, known := blockChecksum(ft.Checksum, buf[:h.size+1])
	if known && got != want {
		return nil, false, &TableError{File: name, Block: what, Want: want, Got: got}
	}
	return buf[:h.size], true, nil
}

// findMeta looks key up in a (checksum-verified, uncompressed) metaindex block and decodes its
// value as a block handle.
func findMeta(b []byte, key string) (h blockHandle, found bool) {
	eachEntry(b, func(k, v []byte) bool {
		if string(k) == key {
			h, found = decodeHandle(v)
			return false
		}
		return true
	})
	return h, found
}
