package format

import (
	"bytes"
	"compress/zlib"
	"sync"
)

// etfVersion and etfCompressed are the ETF version byte and the tag of a
// term_to_binary(T, [compressed]) body.
const (
	etfVersion    = 131
	etfCompressed = 80
)

// CompressTerm turns an uncompressed ETF encoding (131, term) into what
// term_to_binary(T, [compressed]) writes: 131, 80, the uncompressed size of the
// term bytes as uint32, then a zlib stream of them. etf.Encode never compresses;
// fixtures need compressed hooks because the node may store them that way.
func CompressTerm(enc []byte) []byte {
	if len(enc) < 2 || enc[0] != etfVersion {
		return nil
	}
	term := enc[1:]
	var buf bytes.Buffer
	buf.Grow(6 + len(term)/2)
	buf.WriteByte(etfVersion)
	buf.WriteByte(etfCompressed)
	buf.Write(be.AppendUint32(nil, uint32(len(term))))
	// A zlib writer's state is most of a megabyte: made anew for every hook it
	// was a tenth of a wide fixture's CPU, and its garbage as much again. One
	// Reset writes the same bytes as a new one.
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(&buf)
	// Writes to a bytes.Buffer cannot fail.
	_, _ = zw.Write(term)
	_ = zw.Close()
	zw.Reset(nil)
	zlibWriters.Put(zw)
	return buf.Bytes()
}

var zlibWriters = sync.Pool{New: func() any { return zlib.NewWriter(nil) }}
