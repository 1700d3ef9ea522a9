package rocks

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// tableProperties is what the write rule and the tests read from a table file without
// opening the store: its footer and two of its properties.
type tableProperties struct {
	Footer      footer
	Family      string // rocksdb.column.family.name
	Compression string // rocksdb.compression: the configured compression, as RocksDB names it
	IndexBytes  uint64 // rocksdb.index.size: the index blocks' bytes (blockcache.go bounds what they cost)
}

// readTableProperties reads path's footer and properties block, checking both blocks'
// checksums as tablecheck does. A table newer than this build returns its footer only.
func readTableProperties(path string) (tableProperties, error) {
	var tp tableProperties
	f, err := openRegular(path, false)
	if err != nil {
		return tp, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return tp, err
	}
	size := st.Size()
	if tp.Footer, err = readFooter(f, size); err != nil || tp.Footer.Newer() {
		return tp, err
	}
	props, missing, err := propertiesBlock(f, size, tp.Footer)
	if err != nil {
		return tp, err
	}
	if missing != "" {
		return tp, fmt.Errorf("%s: %s", st.Name(), missing)
	}
	eachEntry(props, func(k, v []byte) bool {
		switch string(k) {
		case "rocksdb.column.family.name":
			tp.Family = string(v)
		case "rocksdb.compression":
			tp.Compression = compressionOfProperty(string(v), tp.Footer.Version)
		case "rocksdb.index.size":
			tp.IndexBytes, _ = binary.Uvarint(v) // integer properties are varints
		}
		return true
	})
	return tp, nil
}

// compressionOfProperty is the rocksdb.compression property as the names before
// format_version 7 have it (Snappy, NoCompression, ...). From 7 the property is
// "<compression manager>;<types used, two hex digits each>;" (table/block_based/
// block_based_table_builder.cc): the first type used is the table's compression, and none
// used is NoCompression.
func compressionOfProperty(v string, formatVersion uint32) string {
	if formatVersion < 7 {
		return v
	}
	fields := strings.Split(v, ";")
	if len(fields) < 2 {
		return v
	}
	types := fields[1]
	if types == "" {
		return "NoCompression"
	}
	if len(types) < 2 {
		return v
	}
	t, err := strconv.ParseUint(types[:2], 16, 8)
	if err != nil {
		return v
	}
	for n, c := range compressionPropertyNames {
		if int(c) == int(t) && n != "ZSTDNotFinal" {
			return n
		}
	}
	return v
}

// eachEntry calls fn for every entry of an uncompressed block (prefix-compressed keys,
// restart array at the end), in order, until fn returns false or the block ends; it stops
// quietly at the first entry that does not parse.
func eachEntry(b []byte, fn func(k, v []byte) bool) {
	if len(b) < 4 {
		return
	}
	nr := binary.LittleEndian.Uint32(b[len(b)-4:]) & 0x7fffffff
	if uint64(nr)*4+4 > uint64(len(b)) {
		return
	}
	end := len(b) - 4 - int(nr)*4
	var prev []byte
	for p := 0; p < end; {
		shared, n1 := binary.Uvarint(b[p:end])
		if n1 <= 0 {
			return
		}
		p += n1
		nonShared, n2 := binary.Uvarint(b[p:end])
		if n2 <= 0 {
			return
		}
		p += n2
		vlen, n3 := binary.Uvarint(b[p:end])
		if n3 <= 0 {
			return
		}
		p += n3
		if shared > uint64(len(prev)) || nonShared > uint64(end-p) || vlen > uint64(end-p)-nonShared {
			return
		}
		k := append(prev[:shared:shared], b[p:p+int(nonShared)]...)
		p += int(nonShared)
		v := b[p : p+int(vlen)]
		p += int(vlen)
		if !fn(k, v) {
			return
		}
		prev = k
	}
}

// TableInfo is what a table file says of how it was written.
type TableInfo struct {
	FormatVersion int
	Checksum      string // as RocksDB's OPTIONS file names it, less the k: CRC32c, XXH3, ...
	Family        string
	Compression   string // as its properties name it: Snappy, NoCompression, ZSTD, ...
}

// ReadTableInfo reads a table file's footer and properties (tests, and the write rule's
// account of a store). A table newer than this build reads has its version only.
func ReadTableInfo(path string) (TableInfo, error) {
	tp, err := readTableProperties(path)
	if err != nil {
		return TableInfo{}, err
	}
	ti := TableInfo{FormatVersion: int(tp.Footer.Version), Family: tp.Family, Compression: tp.Compression,
		Checksum: fmt.Sprintf("checksum(%d)", tp.Footer.Checksum)}
	for n, c := range checksumNames {
		if c == tp.Footer.Checksum {
			ti.Checksum = strings.TrimPrefix(n, "k")
		}
	}
	return ti, nil
}
