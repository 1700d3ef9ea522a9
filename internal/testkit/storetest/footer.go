package storetest

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
)

// SetFooterVersion turns the table file at path, a format_version 6 table with crc32c
// checksums, into a real table of format_version v: the version field changed and the footer
// checksum computed again, as RocksDB's FooterBuilder computes it (the 53 footer bytes with
// the checksum field zeroed, crc32c masked, plus the context modifier of the footer's offset).
// Version 7 keeps version 6's footer layout, so this is what a RocksDB 10.4+ writing
// format_version 7 leaves at the end of the file. It is written apart from pkg/rocks's
// footer reader on purpose: the two must agree without sharing code.
func SetFooterVersion(path string, v uint32) error {
	return editFooter(path, func(b []byte) { binary.LittleEndian.PutUint32(b[footerLen-12:], v) })
}

// FutureFeatureBytes are the offsets, in a format_version 6 or 7 footer, of the 8 bytes a
// RocksDB that knows no newer feature writes as zero and checks to be zero ("File uses a
// future feature" when one is not): the 8 bytes before the format_version field.
var FutureFeatureBytes = [8]int{33, 34, 35, 36, 37, 38, 39, 40}

// SetFooterByte sets byte i of the footer of the table file at path (a format_version 6
// crc32c table) to v and computes the footer checksum again, as SetFooterVersion does: a real
// footer naming a feature newer than its version when i is one of FutureFeatureBytes.
func SetFooterByte(path string, i int, v byte) error {
	if i < 17 || i >= footerLen-12 {
		return fmt.Errorf("footer byte %d: only the bytes after the metaindex size and before the version", i)
	}
	return editFooter(path, func(b []byte) { b[i] = v })
}

const footerLen = 53

func editFooter(path string, edit func(b []byte)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(data) < footerLen {
		return fmt.Errorf("%s: too short for a footer", path)
	}
	b := data[len(data)-footerLen:]
	if old := binary.LittleEndian.Uint32(b[footerLen-12:]); old < 6 || b[0] != 1 {
		return fmt.Errorf("%s: format_version %d, checksum type %d: want a format_version 6 crc32c table", path, old, b[0])
	}
	edit(b)
	c := slices.Clone(b)
	clear(c[5:9])
	crc := crc32.Checksum(c, crc32.MakeTable(crc32.Castagnoli))
	masked := ((crc >> 15) | (crc << 17)) + 0xa282ead8
	base := binary.LittleEndian.Uint32(b[9:])
	off := uint64(len(data) - footerLen)
	modifier := base ^ (uint32(off) + uint32(off>>32))
	binary.LittleEndian.PutUint32(b[5:], masked+modifier)
	return os.WriteFile(path, data, 0o644)
}

// NewestTable is the table file of dir with the highest number.
func NewestTable(dir string) (string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "*.sst"))
	if err != nil || len(m) == 0 {
		return "", fmt.Errorf("%s: no table file (%v)", dir, err)
	}
	slices.Sort(m)
	return m[len(m)-1], nil
}
