package rocks

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// A table file's footer, decoded the way RocksDB's Footer::DecodeFrom does (table/format.cc),
// for every format_version up to the newest one published (7). The tool reads footers itself
// for three reasons: the properties-block check before RocksDB opens a store (tablecheck.go),
// telling a table that is newer than this build from a damaged one before any message is
// chosen, and the write rule (writerule.go), which must know what format the store's tables
// are in.
//
// The layouts (all little-endian; every footer of format_version >= 1 is 53 bytes):
//
//	version 0 (legacy magic): metaindex handle, index handle, zero padding to 40, magic
//	versions 1-5:  checksum type (1), metaindex handle, index handle, padding to 40,
//	               format_version (4), magic (8)
//	versions 6-7:  checksum type (1), extended magic 3e 00 7a 00, footer checksum (4),
//	               base context checksum (4), metaindex size (4), 16 unchecked bytes,
//	               8 zero bytes, format_version (4), magic (8)
//
// From version 6 the metaindex block sits right before the footer (its offset is implied),
// the footer carries a checksum of itself (computed with that field zeroed, plus the context
// modifier for the footer's offset), and every block's stored checksum has the context
// modifier of its offset added. Version 7 keeps version 6's footer; what changed is inside
// the table (the compression manager's name), which is why a RocksDB that reads 6 refuses 7.

const (
	magicBlockBased       = 0x88e241b785f4cff7
	magicLegacyBlockBased = 0xdb4775248b80fb57
	footerLen             = 1 + 2*20 + 4 + 8 // Footer::kNewVersionsEncodedLength
	legacyFooterLen       = 2*20 + 8         // Footer::kVersion0EncodedLength
	blockTrailerLen       = 5                // compression type + checksum

	// MaxTableFormatVersion is the newest block-based table format_version this build's
	// RocksDB (11.1) reads and writes (table/format.h kLatestFormatVersion).
	MaxTableFormatVersion = 7
	// contextFooterVersion is the first format_version with the checksummed footer.
	contextFooterVersion = 6
)

var extendedMagic = [4]byte{0x3e, 0x00, 0x7a, 0x00}

// footer is a decoded table footer.
type footer struct {
	Version     uint32 // format_version; 0 for the legacy magic
	Checksum    byte   // the checksum type of every block (and of the footer from version 6)
	Metaindex   blockHandle
	BaseContext uint32 // version >= 6: the base of every block's context modifier
	Offset      uint64 // where the footer starts in the file
	// FutureFeature: a checksummed footer whose reserved bytes say it uses a feature
	// newer than its version.
	FutureFeature bool
}

// Newer reports whether this build's RocksDB cannot read the table.
func (f footer) Newer() bool { return f.Version > MaxTableFormatVersion || f.FutureFeature }

// A footer of version 6 or later vouches for its own version with its checksum: one that
// names a version above MaxTableFormatVersion and checks out is a newer table, one that does
// not check out is damage. Below 6 nothing vouches for the version field, so any version
// from 1 to 5 is taken as written and RocksDB checks the blocks.

// errNotBlockBased: the file does not end in a block-based table's magic (a plain table,
// or a table file a live writer has not finished).
var errNotBlockBased = errors.New("not a block-based table")

// footerError is a footer that does not decode: damage, never a newer format.
type footerError struct{ why string }

func (e *footerError) Error() string { return "damaged table footer: " + e.why }

// readFooter reads and decodes the footer of the table file f of the given size. It returns
// errNotBlockBased, a *footerError, or a footer whose Version may be above
// MaxTableFormatVersion (the caller decides what a newer table means).
func readFooter(f *os.File, size int64) (footer, error) {
	if size < legacyFooterLen {
		return footer{}, &footerError{fmt.Sprintf("file is %d bytes, too short to be a table", size)}
	}
	tail := make([]byte, min(size, footerLen))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return footer{}, err
	}
	return decodeFooter(tail, uint64(size))
}

// decodeFooter decodes the footer at the end of tail, the last bytes of a file of size bytes.
func decodeFooter(tail []byte, size uint64) (footer, error) {
	magic := binary.LittleEndian.Uint64(tail[len(tail)-8:])
	switch magic {
	case magicLegacyBlockBased:
		h := tail[len(tail)-legacyFooterLen:]
		meta, ok := decodeHandle(h)
		if !ok {
			return footer{}, &footerError{"metaindex handle does not decode"}
		}
		return footer{Version: 0, Checksum: sumCRC32c, Metaindex: meta, Offset: size - legacyFooterLen}, nil
	case magicBlockBased:
	default:
		return footer{}, errNotBlockBased
	}
	if len(tail) < footerLen {
		return footer{}, &footerError{"file is too short for a table footer"}
	}
	b := tail[len(tail)-footerLen:]
	ft := footer{
		Version:  binary.LittleEndian.Uint32(b[footerLen-12:]),
		Checksum: b[0],
		Offset:   size - footerLen,
	}
	if ft.Checksum > sumXXH3 {
		return footer{}, &footerError{fmt.Sprintf("unknown checksum type %d", ft.Checksum)}
	}
	if ft.Version < contextFooterVersion {
		meta, ok := decodeHandle(b[1:])
		if !ok {
			return footer{}, &footerError{"metaindex handle does not decode"}
		}
		ft.Metaindex = meta
		return ft, nil
	}
	if [4]byte(b[1:5]) != extendedMagic {
		return footer{}, &footerError{fmt.Sprintf("format_version %d without its extended magic", ft.Version)}
	}
	stored := binary.LittleEndian.Uint32(b[5:])
	ft.BaseContext = binary.LittleEndian.Uint32(b[9:])
	if contextModifier(ft.BaseContext, 0) == 0 {
		return footer{}, &footerError{"invalid base context checksum"}
	}
	// The stored checksum is checked for every checksum type, none included: a writer with
	// checksums off stores the context modifier alone (a checksum of 0 plus the modifier),
	// so a checksum type changed to 0 in a checksummed footer does not check out either.
	var got uint32
	if ft.Checksum != sumNone {
		var c [footerLen]byte
		copy(c[:], b)
		clear(c[5:9])
		got, _ = blockChecksum(ft.Checksum, c[:])
	}
	got += contextModifier(ft.BaseContext, ft.Offset)
	if got != stored {
		return footer{}, &footerError{fmt.Sprintf("footer checksum mismatch (stored %#x, computed %#x with checksum type %d)", stored, got, ft.Checksum)}
	}
	// Checked reserved bytes that are not zero mean a feature newer than the version field
	// says (RocksDB: NotSupported, "File uses a future feature"): as newer as a higher version.
	ft.FutureFeature = binary.LittleEndian.Uint64(b[footerLen-20:]) != 0
	if ft.Version > MaxTableFormatVersion || ft.FutureFeature {
		// Only a footer whose checksum covers its bytes vouches for a newer version or
		// feature: without one (type none), the version field and the reserved bytes could
		// be any damage, and the operator must not be told the store is fine.
		if ft.Checksum == sumNone {
			return footer{}, &footerError{fmt.Sprintf("format_version %d footer without a checksum names a version or feature newer than this build reads: not vouched for", ft.Version)}
		}
		// A checksummed footer of a newer version: real, and not this build's to read further
		// (format_version 8 drafts already place the metaindex differently).
		return ft, nil
	}
	metaSize := uint64(binary.LittleEndian.Uint32(b[13:]))
	if metaSize+blockTrailerLen > ft.Offset {
		return footer{}, &footerError{fmt.Sprintf("metaindex of %d bytes does not fit before the footer", metaSize)}
	}
	ft.Metaindex = blockHandle{off: ft.Offset - blockTrailerLen - metaSize, size: metaSize}
	return ft, nil
}

// contextModifier is table/format.h's ChecksumModifierForContext: what format_version 6 adds
// to the checksum of the block (or footer) at offset; 0 when base is 0.
func contextModifier(base uint32, offset uint64) uint32 {
	if base == 0 {
		return 0
	}
	return base ^ (uint32(offset) + uint32(offset>>32))
}
